/** The wire format lives in @lectern/protocol, shared with the widget; re-exported for the HTTP layer. */
export * from "@lectern/protocol";
