import type { ButtonHTMLAttributes } from "react";

type Variant = "primary" | "secondary" | "danger" | "ghost";

const variants: Record<Variant, string> = {
  primary: "bg-accent text-accent-fg shadow-xs hover:bg-accent/90",
  secondary: "border border-border-strong bg-surface text-fg shadow-xs hover:bg-surface-hover",
  danger: "bg-danger text-white shadow-xs hover:bg-danger/90",
  ghost: "text-fg-muted hover:bg-surface-hover hover:text-fg",
};

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: Variant;
}

/** A button's look, for a link that acts as one ("Create a cluster", "Import Envoy YAML"). */
export function buttonClass(variant: Variant): string {
  return `inline-flex h-8 items-center justify-center gap-2 rounded-md px-3 text-sm font-medium transition-colors ${variants[variant]}`;
}

export function Button({ variant = "secondary", className = "", type, ...props }: ButtonProps) {
  return (
    <button
      type={type === "submit" || type === "reset" ? type : "button"}
      className={`${buttonClass(variant)} disabled:cursor-not-allowed disabled:opacity-60 ${className}`}
      {...props}
    />
  );
}
