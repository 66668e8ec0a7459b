/**
 * The one approximate token count every figure uses (injection size, background requests, benchmarks). Approximate
 * on purpose: the provider's tokenizer is not available offline, and these numbers only size budgets and reports.
 */

function isCjk(c: number): boolean {
  return (
    (c >= 0x3000 && c <= 0x30ff) ||
    (c >= 0x3400 && c <= 0x9fff) ||
    (c >= 0xac00 && c <= 0xd7af) ||
    (c >= 0xf900 && c <= 0xfaff) ||
    (c >= 0xff00 && c <= 0xffef)
  )
}

/** Approximate tokens: about 0.6 per CJK character and 0.3 per other character (DeepSeek's published rule of thumb). */
export function approxTokens(text: string): number {
  let cjk = 0
  for (let i = 0; i < text.length; i++) if (isCjk(text.charCodeAt(i))) cjk++
  return Math.ceil(cjk * 0.6 + (text.length - cjk) * 0.3)
}
