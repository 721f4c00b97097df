/**
 * A dynamic route segment as the object name it stands for. Links encode names with
 * encodeURIComponent; Next hands the segment over still encoded in some cases, so decode it once,
 * and keep it as is when it is not valid percent-encoding.
 */
export function routeParam(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
