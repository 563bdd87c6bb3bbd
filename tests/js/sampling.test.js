// labs/ui/assets/sampling.js against labs/ui/playback.py sample(), revealed() and clipped().
const test = require("node:test")
const assert = require("node:assert/strict")
const { CASES, asset } = require("./cases.js")

const { sample, revealed, clipped } = asset("sampling.js")

test("sample() interpolates every column as sample() (np.interp) does", () => {
  for (const { trajectory, at, sample: expected } of CASES.sampling) {
    at.forEach((t, i) => assert.deepEqual(sample(trajectory, t), expected[i], `t = ${t} in ${JSON.stringify(trajectory)}`))
  }
})

test("revealed() draws the path up to t as revealed() does", () => {
  for (const { trajectory, at, revealed: expected } of CASES.sampling) {
    at.forEach((t, i) => assert.deepEqual(revealed(trajectory, t), expected[i], `t = ${t}`))
  }
})

test("clipped() cuts the interval bars at t as clipped() does", () => {
  for (const { intervals, at, clipped: expected } of CASES.clipped) {
    at.forEach((t, i) => assert.deepEqual(clipped(intervals, t), expected[i], `t = ${t}`))
  }
})
