/**
 * A protobuf wire writer for the fast encoders: one growing buffer, nested messages written in
 * place with a one-byte length reserved and widened on `join` only when a message reaches 128
 * bytes, and ASCII strings copied without a TextEncoder call. Much cheaper than protobuf-es's
 * chunked BinaryWriter for many small messages; produces the same bytes.
 */
export class WireWriter {
  #buffer = new Uint8Array(1024);
  #pos = 0;
  readonly #forks: number[] = [];
  static readonly #utf8 = new TextEncoder();

  #ensure(bytes: number): void {
    if (this.#pos + bytes <= this.#buffer.length) return;
    let size = this.#buffer.length * 2;
    while (size < this.#pos + bytes) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.#buffer.subarray(0, this.#pos));
    this.#buffer = next;
  }

  /** An unsigned varint (up to 2^53). */
  varint(value: number): this {
    this.#ensure(10);
    let v = value;
    while (v >= 0x80) {
      this.#buffer[this.#pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.#buffer[this.#pos++] = v;
    return this;
  }

  tag(field: number, wireType: number): this {
    return this.varint(field * 8 + wireType);
  }

  string(value: string): this {
    let ascii = true;
    for (let i = 0; i < value.length; i++) {
      if (value.charCodeAt(i) > 0x7f) {
        ascii = false;
        break;
      }
    }
    if (!ascii) return this.bytes(WireWriter.#utf8.encode(value));
    this.varint(value.length);
    this.#ensure(value.length);
    for (let i = 0; i < value.length; i++) this.#buffer[this.#pos++] = value.charCodeAt(i);
    return this;
  }

  bytes(value: Uint8Array): this {
    this.varint(value.length);
    this.#ensure(value.length);
    this.#buffer.set(value, this.#pos);
    this.#pos += value.length;
    return this;
  }

  /** Starts a length-delimited value (write its tag first). */
  fork(): this {
    this.#ensure(1);
    this.#forks.push(this.#pos);
    this.#pos += 1;
    return this;
  }

  /** Ends the value started by the matching `fork`, writing its length before it. */
  join(): this {
    const start = this.#forks.pop();
    if (start === undefined) throw new Error("join without fork");
    const length = this.#pos - start - 1;
    if (length < 0x80) {
      this.#buffer[start] = length;
      return this;
    }
    let width = 1;
    for (let v = length; v >= 0x80; v = Math.floor(v / 0x80)) width++;
    this.#ensure(width - 1);
    this.#buffer.copyWithin(start + width, start + 1, this.#pos);
    this.#pos += width - 1;
    let v = length;
    let at = start;
    while (v >= 0x80) {
      this.#buffer[at++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.#buffer[at] = v;
    return this;
  }

  /** The bytes written so far, as a new array; the writer is then empty and reusable. */
  finish(): Uint8Array {
    if (this.#forks.length > 0) throw new Error("finish with an unjoined fork");
    const out = this.#buffer.slice(0, this.#pos);
    this.#pos = 0;
    return out;
  }
}
