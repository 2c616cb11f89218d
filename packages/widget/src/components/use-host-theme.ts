import { useEffect, useState } from "react";

export type Theme = "light" | "dark";

const DARK_SCHEME = "(prefers-color-scheme: dark)";

/**
 * The host site's theme: `html[data-theme]` as Docusaurus sets it (or a `dark` class), else the
 * system's colour scheme.
 */
export function detectHostTheme(): Theme {
  const root = document.documentElement;
  const declared = root.dataset.theme;
  if (declared === "dark" || declared === "light") return declared;
  if (root.classList.contains("dark")) return "dark";
  return typeof window.matchMedia === "function" && window.matchMedia(DARK_SCHEME).matches
    ? "dark"
    : "light";
}

/** Follows the host's theme as it changes (Docusaurus' toggle, the system setting). */
export function useHostTheme(preference: "auto" | Theme): Theme {
  const [hostTheme, setHostTheme] = useState<Theme>(detectHostTheme);

  useEffect(() => {
    if (preference !== "auto") return;
    const update = () => setHostTheme(detectHostTheme());
    update();
    const observer = new MutationObserver(update);
    observer.observe(document.documentElement, {
      attributes: true,
      attributeFilter: ["data-theme", "class"],
    });
    const media = typeof window.matchMedia === "function" ? window.matchMedia(DARK_SCHEME) : null;
    media?.addEventListener("change", update);
    return () => {
      observer.disconnect();
      media?.removeEventListener("change", update);
    };
  }, [preference]);

  return preference === "auto" ? hostTheme : preference;
}
