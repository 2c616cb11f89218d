export { LecternChat } from "./LecternChat.tsx";
export { type MountedWidget, mount } from "./mount.tsx";
export type { LecternOptions } from "./options.ts";
export type { ChatState, ChatStatus, ChatStore } from "./store/chat-store.ts";
