// labs/ui/assets/roofline_hover.js against the roofline model's attainable min(P, I·B) and regime.
const test = require("node:test")
const assert = require("node:assert/strict")
const { CASES, asset } = require("./cases.js")

// The page runs formats.js and the hover in one body: here its functions are globals.
Object.assign(globalThis, asset("formats.js"))
const { roofline_hover } = asset("roofline_hover.js")

test("the roof's hover says what the model attains at I, and which roof bounds it", () => {
  assert.ok(CASES.hover.some(({ text }) => text.endsWith("(at the ridge)")))
  for (const { I, P, B, text } of CASES.hover) assert.equal(roofline_hover(I, P, B), text, `I = ${I}, P = ${P}, B = ${B}`)
})
