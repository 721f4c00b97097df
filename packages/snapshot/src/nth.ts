/**
 * A list item's position as a message says it: from 1, as the console counts ("route 1",
 * "filter chain 1", "locality 1" are routes[0], filterChains[0], localities[0]). Field paths
 * (`routes[0]`) are machine-readable and stay 0-based. Pure.
 */
export function nth(index: number): number {
  return index + 1;
}
