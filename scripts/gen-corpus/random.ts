/**
 * Seeded randomness for the corpus generator: one small PRNG (sfc32, 32-bit state words), sampling
 * from a stored quantile list (inverse CDF, piecewise linear between the quantile points of
 * `profile.ts`), ids in the shapes the tools use (docs/formats.md §1.2, §2.1).
 */
import { quantilePoints } from "./profile.ts";

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A deterministic random source; the same seed always yields the same sequence. */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    this.a = 0x9e3779b9;
    this.b = 0x243f6a88;
    this.c = 0xb7e15162;
    this.d = seed >>> 0;
    for (let i = 0; i < 15; i++) this.next();
  }

  /** Uniform float in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** Integer in [lo, hi] inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** A key of `weights` drawn in proportion to its value. */
  weighted(weights: Record<string, number>): string {
    const entries = Object.entries(weights);
    const total = entries.reduce((sum, [, w]) => sum + w, 0);
    let u = this.next() * total;
    for (const [key, w] of entries) if ((u -= w) <= 0) return key;
    return entries[entries.length - 1]![0];
  }

  /** A value from a distribution stored as values at `quantilePoints` (inverse CDF, linear). */
  fromQuantiles(values: readonly number[]): number {
    const u = this.next();
    for (let i = 1; i < quantilePoints.length; i++) {
      const q0 = quantilePoints[i - 1]!,
        q1 = quantilePoints[i]!;
      if (u <= q1) return values[i - 1]! + ((values[i]! - values[i - 1]!) * (u - q0)) / (q1 - q0);
    }
    return values[values.length - 1]!;
  }

  /** `n` hex digits. */
  hex(n: number): string {
    let out = "";
    for (let i = 0; i < n; i++) out += "0123456789abcdef"[Math.floor(this.next() * 16)];
    return out;
  }

  /** `n` base62 characters (the tail of Anthropic/OpenCode ids). */
  base62(n: number): string {
    let out = "";
    for (let i = 0; i < n; i++) out += base62[Math.floor(this.next() * 62)];
    return out;
  }

  /** A UUIDv4 string. */
  uuid(): string {
    const h = this.hex(32);
    const variant = "89ab"[Math.floor(this.next() * 4)];
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20)}`;
  }
}
