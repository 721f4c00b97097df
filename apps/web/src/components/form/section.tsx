import type { ReactNode } from "react";

/** One titled card of a form: "Endpoints", "Health checks". */
export function FormSection({
  title,
  badge,
  description,
  actions,
  children,
  id,
}: {
  title: string;
  /** A small label beside the title (outside the heading): who owns a virtual host. */
  badge?: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  id?: string;
}) {
  const headingId = `${id ?? title.toLowerCase().replace(/\W+/g, "-")}-heading`;
  return (
    <section
      id={id}
      aria-labelledby={headingId}
      className="scroll-mt-24 rounded-xl border bg-surface shadow-xs"
    >
      <header className="flex flex-wrap items-start justify-between gap-3 border-b px-5 py-4">
        <div className="min-w-0">
          <div className="flex flex-wrap items-center gap-2">
            <h2 id={headingId} className="text-[15px] font-semibold text-fg">
              {title}
            </h2>
            {badge}
          </div>
          {description && <p className="mt-0.5 text-[13px] text-fg-muted">{description}</p>}
        </div>
        {actions && <div className="flex shrink-0 items-center gap-2">{actions}</div>}
      </header>
      <div className="flex flex-col gap-5 px-5 py-5">{children}</div>
    </section>
  );
}

/** A responsive grid of fields inside a section. */
export function FieldGrid({ children, columns = 3 }: { children: ReactNode; columns?: 2 | 3 | 4 }) {
  const cols = { 2: "sm:grid-cols-2", 3: "sm:grid-cols-3", 4: "sm:grid-cols-4" }[columns];
  return <div className={`grid grid-cols-1 gap-4 ${cols}`}>{children}</div>;
}
