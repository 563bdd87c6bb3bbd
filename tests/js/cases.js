// The table of cases the Python side computed (tests/js_cases.py writes tests/fixtures/js_twins.json), and the
// rule every figure shown must follow, as tests/test_numbers.py states it. Not a test file: the tests require() it.
const fs = require("node:fs")
const path = require("node:path")

const ROOT = path.join(__dirname, "..", "..")
const CASES = JSON.parse(fs.readFileSync(path.join(ROOT, "tests", "fixtures", "js_twins.json"), "utf-8"))

// labs/ui/assets/<name>: the file the page runs, loaded as a CommonJS module.
function asset(name) {
  return require(path.join(ROOT, "labs", "ui", "assets", name))
}

const NEGATIVE_ZERO = /(?<![\d.])-0(?:\.0+)?(?![\d.])/
const FORBIDDEN = /nan|inf/i

// No NaN/inf words, no negative zero, at most 20 characters (tests/test_numbers.py humane()).
function humane(text) {
  return !FORBIDDEN.test(text) && !NEGATIVE_ZERO.test(text) && [...text].length <= 20
}

module.exports = { CASES, asset, humane }
