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

export function Button({ variant = "secondary", className = "", type, ...props }: ButtonProps) {
  return (
    <button
      type={type === "submit" || type === "reset" ? type : "button"}
      className={`inline-flex h-8 items-center justify-center gap-2 rounded-md px-3 text-sm font-medium transition-colors disabled:cursor-not-allowed disabled:opacity-60 ${variants[variant]} ${className}`}
      {...props}
    />
  );
}
