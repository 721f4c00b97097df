import { describe, expect, it } from "vitest";
import { quotedInput, shownPath, truncateUtf8 } from "./bounded-text.js";

const bytes = (text: string) => new TextEncoder().encode(text).length;

describe("truncateUtf8", () => {
  it("keeps a text that fits as it is", () => {
    expect(truncateUtf8("short", 64)).toBe("short");
    expect(truncateUtf8("é".repeat(32), 64)).toBe("é".repeat(32));
  });

  it("cuts a longer text to the bound, marker included, saying how many bytes were dropped", () => {
    const cut = truncateUtf8("x".repeat(10_000), 1_024);
    expect(bytes(cut)).toBeLessThanOrEqual(1_024);
    const kept = cut.indexOf("…");
    expect(cut.slice(kept)).toBe(`… [truncated ${10_000 - kept} bytes]`);
    expect(cut.slice(0, kept)).toBe("x".repeat(kept));
  });

  it("never cuts inside a code point, so the result is valid UTF-8", () => {
    for (const unit of ["é", "€", "😀"]) {
      for (let max = 64; max < 80; max++) {
        const cut = truncateUtf8(unit.repeat(100), max);
        expect(bytes(cut)).toBeLessThanOrEqual(max);
        const kept = cut.slice(0, cut.indexOf("…"));
        expect(kept).toBe(unit.repeat(kept.length / unit.length));
        const dropped = Number(/truncated (\d+) bytes/.exec(cut)?.[1]);
        expect(bytes(kept) + dropped).toBe(bytes(unit.repeat(100)));
      }
    }
  });

  it("quotes a caller's value whole up to 80 characters, and past that cut with its length in characters", () => {
    expect(quotedInput("shop")).toBe('"shop"');
    expect(quotedInput("é".repeat(80))).toBe(JSON.stringify("é".repeat(80)));
    expect(quotedInput(`${"ab".repeat(50)}`)).toBe(
      `${JSON.stringify("ab".repeat(40))}… (100 characters)`,
    );
  });

  it("quotes a value that is not a string as its JSON, cut the same way", () => {
    expect(quotedInput(42)).toBe("42");
    expect(quotedInput({ a: "b" })).toBe('{"a":"b"}');
    expect(quotedInput(["y".repeat(200)])).toBe(`["${"y".repeat(78)}… (204 characters)`);
  });

  it("shows a field path with each long quoted name in it cut, and a short path as it is", () => {
    const long = "x".repeat(10_000);
    expect(shownPath('clusters["api"].localities[0]')).toBe('clusters["api"].localities[0]');
    expect(shownPath(`clusters[${JSON.stringify(long)}].name`)).toBe(
      `clusters[${quotedInput(long)}].name`,
    );
    expect(shownPath(`listeners["edge"].filterChains[${"9".repeat(100)}]`)).toBe(
      `listeners["edge"].filterChains[${"9".repeat(100)}]`,
    );
  });
});
