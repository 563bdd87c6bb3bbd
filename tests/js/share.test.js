// app/web/assets/share.js: the shared addresses and the <iframe> snippet, as the Share panel shows them.
const test = require("node:test")
const assert = require("node:assert/strict")
const path = require("node:path")

const { shareAddresses, shareEscape } = require(path.join(__dirname, "..", "..", "app", "web", "assets", "share.js"))

test("a lab's link and embed code are made from the page's own address", () => {
  const shared = shareAddresses("http://127.0.0.1:5006/lab?id=queue", "queue", "embed/queue", "Queue lab")
  assert.equal(shared.link, "http://127.0.0.1:5006/queue")
  assert.equal(shared.embed, "http://127.0.0.1:5006/embed/queue")
  assert.equal(
    shared.snippet,
    '<iframe src="http://127.0.0.1:5006/embed/queue" title="Queue lab" width="100%" height="720" ' +
      'style="border:0" loading="lazy"></iframe>',
  )
})

test("a public URL with a path keeps its path; so does a page under a proxy's prefix", () => {
  const shared = shareAddresses("https://course.example.org/overlap/", "queue", "embed/queue", "Queue lab")
  assert.equal(shared.link, "https://course.example.org/overlap/queue")
  assert.equal(shared.embed, "https://course.example.org/overlap/embed/queue")
  const behind = shareAddresses("https://school.example/ol/lesson?id=overlap", "lesson?id=overlap&exercise=growth", "", "x")
  assert.equal(behind.link, "https://school.example/ol/lesson?id=overlap&exercise=growth")
})

test("an exercise's embed code escapes its address and title in the attributes", () => {
  const shared = shareAddresses(
    "http://localhost:5006/lesson?id=overlap",
    "lesson?id=overlap&exercise=growth",
    "embed/lesson?id=overlap&exercise=growth",
    'Exercise: "Four" <in> & three\'s out',
  )
  assert.equal(shared.embed, "http://localhost:5006/embed/lesson?id=overlap&exercise=growth")
  assert.ok(shared.snippet.startsWith('<iframe src="http://localhost:5006/embed/lesson?id=overlap&amp;exercise=growth" '))
  assert.ok(shared.snippet.includes('title="Exercise: &quot;Four&quot; &lt;in&gt; &amp; three&#x27;s out"'))
})

test("without an embed page there is no embed code", () => {
  const shared = shareAddresses("http://localhost:5006/lab?id=queue", "lab?id=queue", "", "Queue lab")
  assert.equal(shared.link, "http://localhost:5006/lab?id=queue")
  assert.equal(shared.embed, "")
  assert.equal(shared.snippet, "")
})

test("shareEscape leaves plain text alone", () => {
  assert.equal(shareEscape("Queue lab"), "Queue lab")
})
