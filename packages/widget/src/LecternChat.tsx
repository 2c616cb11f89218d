import { useEffect, useRef } from "react";
import { type MountedWidget, mount } from "./mount.tsx";
import type { LecternOptions } from "./options.ts";

/**
 * The widget as a React component. It renders an empty host element and mounts the widget in
 * that element's shadow root (a root of its own), so the host app's styles cannot reach it.
 */
export function LecternChat(props: LecternOptions) {
  const hostRef = useRef<HTMLDivElement>(null);
  const widgetRef = useRef<MountedWidget | null>(null);
  const latestProps = useRef(props);
  latestProps.current = props;

  useEffect(() => {
    const host = hostRef.current;
    if (!host) return;
    const widget = mount(host, latestProps.current);
    widgetRef.current = widget;
    return () => {
      widgetRef.current = null;
      // Unmounting a root while React is committing this one is not allowed; do it right after.
      queueMicrotask(() => widget.unmount());
    };
  }, []);

  useEffect(() => {
    widgetRef.current?.update(props);
  });

  return <div ref={hostRef} data-lectern-chat="" />;
}
