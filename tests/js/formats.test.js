// labs/ui/assets/formats.js against labs/numbers.py fixed() and significant() and playback.fill_template().
const test = require("node:test")
const assert = require("node:assert/strict")
const { CASES, asset, humane } = require("./cases.js")

const { figure, fill, significant } = asset("formats.js")

test("figure() shows every value as fixed() does", () => {
  for (const { value, digits, text, tie } of CASES.figure) {
    const shown = figure(Number(value), digits)
    assert.ok(humane(shown), `${value} at ${digits} decimals shows ${shown}`)
    // An exact tie rounds to even in Python and away from zero in JavaScript: only humane there.
    if (!tie) assert.equal(shown, text, `${value} at ${digits} decimals`)
  }
})

test("fill() fills a readout template as fill_template() does", () => {
  for (const { template, values, text } of CASES.fill) {
    const numbers = Object.fromEntries(Object.entries(values).map(([key, value]) => [key, Number(value)]))
    assert.equal(fill(template, numbers), text, template)
  }
})

test("significant() shows every value as significant() does", () => {
  for (const { value, text, tie } of CASES.significant) {
    const shown = significant(Number(value))
    assert.ok(humane(shown), `${value} shows ${shown}`)
    if (!tie) assert.equal(shown, text, value)
  }
})
