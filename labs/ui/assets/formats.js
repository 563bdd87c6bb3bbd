// Figures for people in the browser, by the rules of labs/numbers.py: figure() is fixed(), fill() is
// labs/ui/playback.py fill_template(), significant() is significant(). The page runs this file in the
// same body as the code that calls it (player.js, roofline_hover.js); Node's tests require() it.

// A figure with fixed decimals, by the rules of labs/numbers.py fixed(): never a negative zero,
// m × 10^e from 10^12 on, and words instead of NaN or an infinity.
function figure(value, digits) {
  const v = Number(value)
  if (Number.isNaN(v)) return "undefined"
  if (!Number.isFinite(v)) return v > 0 ? "unbounded" : "unbounded (negative)"
  if (Math.abs(v) >= 1e12) {
    const [mantissa, exponent] = v.toExponential(2).split("e")
    return `${mantissa} × 10^${Number(exponent)}`
  }
  const text = v.toFixed(digits)
  return /[1-9]/.test(text) ? text : text.replace("-", "")
}

// Fill {name} / {name:digits} placeholders with figure(); unknown placeholders stay as they are.
function fill(template, values) {
  return template.replace(/\{(\w+)(?::(\d+))?\}/g, (whole, key, digits) =>
    key in values ? figure(values[key], digits === undefined ? 2 : Number(digits)) : whole)
}

// labs/numbers.py significant(): `digits` significant digits, m × 10^e beyond 10^-6 … 10^12.
function significant(v, digits = 4) {
  if (!Number.isFinite(v)) return Number.isNaN(v) ? "undefined" : (v > 0 ? "unbounded" : "unbounded (negative)")
  if (v !== 0 && (Math.abs(v) >= 1e12 || Math.abs(v) < 1e-6)) {
    const [mantissa, exponent] = v.toExponential(digits - 1).split("e")
    return `${mantissa} × 10^${Number(exponent)}`
  }
  return Number(v.toPrecision(digits)).toString().replace(/^-0$/, "0")
}

// Under Node only (the page has a window, and no module of its own here):
if (typeof window === "undefined" && typeof module !== "undefined") module.exports = { figure, fill, significant }
