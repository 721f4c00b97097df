import type { ReactNode } from "react";

/**
 * A titled panel: a region named by its heading (`id` ties them together), with an optional
 * note or link at the right of the heading. `children` sit directly under the header; wrap them
 * in padding where the content is not a full-width table or list.
 */
export function Card({
  id,
  title,
  aside,
  children,
}: {
  id: string;
  title: string;
  aside?: ReactNode;
  children: ReactNode;
}) {
  return (
    <section
      aria-labelledby={id}
      className="flex flex-col overflow-hidden rounded-xl border bg-surface shadow-xs"
    >
      <header className="flex flex-wrap items-center gap-3 border-b px-5 py-3">
        <h2 id={id} className="text-sm font-semibold text-fg">
          {title}
        </h2>
        {aside && <div className="ml-auto text-xs text-fg-subtle">{aside}</div>}
      </header>
      {children}
    </section>
  );
}
