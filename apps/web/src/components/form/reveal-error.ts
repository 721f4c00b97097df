"use client";

import { useCallback, useEffect, useRef, useState } from "react";

/** What a failed save points the user at, in order: a field marked invalid, else an alert. */
const INVALID = '[aria-invalid="true"]';
const ALERT = '[role="alert"]';

/**
 * Brings the first problem in `root` into view and gives it focus: a control marked invalid
 * (aria-invalid, as field.tsx marks it), else the first alert (a list's error, the summary).
 *
 * Centred, not "nearest": the form's Save bar is fixed at the bottom of the window and the top
 * bar is sticky, so a field the browser scrolls to the nearest edge (what `focus()` and
 * react-hook-form's `setFocus` do) ends up under one of them and the save seems to do nothing.
 * The focus itself does not scroll (`preventScroll`), so nothing moves it back.
 */
export function revealFirstProblem(root: Element | null): boolean {
  const target =
    root?.querySelector<HTMLElement>(INVALID) ?? root?.querySelector<HTMLElement>(ALERT);
  if (!target) return false;
  target.scrollIntoView({ block: "center", inline: "nearest", behavior: "instant" });
  if (target.matches(INVALID)) target.focus({ preventScroll: true });
  return true;
}

/**
 * `reveal()` for a form: after React has drawn the errors the failed save set (an effect, then a
 * frame), the first problem inside the returned `ref`'s element is brought into view.
 */
export function useRevealProblem<E extends Element>() {
  const ref = useRef<E>(null);
  const [asked, setAsked] = useState(0);
  useEffect(() => {
    if (asked === 0) return;
    const frame = requestAnimationFrame(() => revealFirstProblem(ref.current));
    return () => cancelAnimationFrame(frame);
  }, [asked]);
  const reveal = useCallback(() => setAsked((n) => n + 1), []);
  return { ref, reveal };
}

/**
 * Brings the control react-hook-form registered as `name` into view, centred, and focuses it:
 * for a form that puts a server's refusal at one field (access-form.tsx).
 */
export function revealNamedField(name: string): void {
  requestAnimationFrame(() => {
    const control = document.querySelector<HTMLElement>(`[name="${CSS.escape(name)}"]`);
    if (!control) return;
    control.scrollIntoView({ block: "center", inline: "nearest", behavior: "instant" });
    control.focus({ preventScroll: true });
  });
}
