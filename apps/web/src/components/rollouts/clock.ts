/** "14:02:07" in the reader's locale; "—" for no time. */
export function clock(at: number | undefined): string {
  if (at === undefined) return "—";
  return new Date(at).toLocaleTimeString(undefined, {
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
}
