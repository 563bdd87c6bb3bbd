// app/upstream/assets/early_connection.js against a fake WebSocket and a small Bokeh client: what Bokeh is
// handed, in which order, and which frames go out, in each order the page's events can come in.
const test = require("node:test")
const assert = require("node:assert/strict")
const fs = require("node:fs")
const path = require("node:path")
const vm = require("node:vm")

const SOURCE = fs.readFileSync(path.join(__dirname, "..", "..", "app", "upstream", "assets", "early_connection.js"), "utf-8")
const TOKEN = "a-session-token"
const URL_OF_PAGE = "ws://course.example:5006/lesson/ws?id=overlap"

// Frames as the server sends them: header, metadata, content, then header and payload per buffer.
const message = (header, content = {}, buffers = []) => [
  JSON.stringify({ ...header, ...(buffers.length ? { num_buffers: buffers.length } : {}) }),
  "{}",
  JSON.stringify(content),
  ...buffers.flatMap((payload, i) => [JSON.stringify({ id: `${i}` }), payload]),
]
const ACK = message({ msgid: "s1", msgtype: "ACK" })
const reply = (reqid, buffers = []) => message({ msgid: "s2", msgtype: "PULL-DOC-REPLY", reqid }, { doc: { roots: [] } }, buffers)
const PATCH = message({ msgid: "s3", msgtype: "PATCH-DOC" }, { events: ["the lab"] })

const task = () => new Promise((resolve) => setImmediate(resolve))

// The page's MessageChannel: every one made is closed once its test is done (Node keeps running
// while a port has an onmessage handler, and setting one refs the port again).
const channels = []
class ClosedAfterTest extends MessageChannel {
  constructor() {
    super()
    channels.push(this)
  }
}
test.afterEach(() => {
  for (const channel of channels.splice(0)) {
    channel.port1.close()
    channel.port2.close()
  }
})
async function settle() {
  for (let i = 0; i < 30; i++) await task()
}

// A page: window, location and a WebSocket class that records what happens to each socket.
function page({ bundlesFetched = Promise.resolve() } = {}) {
  class FakeSocket {
    static CONNECTING = 0
    static OPEN = 1
    static CLOSING = 2
    static CLOSED = 3
    constructor(url, protocols) {
      this.url = url
      this.protocols = protocols
      this.readyState = FakeSocket.CONNECTING
      this.listeners = {}
      this.sent = []
      made.push(this)
    }
    addEventListener(type, listener) {
      ;(this.listeners[type] ||= []).push(listener)
    }
    send(data) {
      this.sent.push(data)
    }
    close(code, reason) {
      this.readyState = FakeSocket.CLOSED
      this.closedWith = [code, reason]
    }
    // What the browser does, each as a task of its own.
    async dispatch(type, event) {
      await task()
      for (const listener of this.listeners[type] || []) listener(event)
      if (typeof this[`on${type}`] === "function") this[`on${type}`](event)
    }
    async open() {
      this.readyState = FakeSocket.OPEN
      await this.dispatch("open", {})
    }
    async receive(frames) {
      for (const data of frames) await this.dispatch("message", { data })
    }
  }
  const made = []
  const window = {
    location: { protocol: "http:", host: "course.example:5006", pathname: "/lesson", search: "?id=overlap" },
    WebSocket: FakeSocket,
    overlapBundlesFetched: bundlesFetched,
  }
  const context = vm.createContext({
    window, JSON, Math, Promise, Proxy, Reflect, Array, MessageChannel: ClosedAfterTest, MessageEvent, Event, queueMicrotask,
  })
  const run = vm.runInContext(SOURCE, context)
  return { window, made, FakeSocket, run }
}

// Bokeh's ClientConnection as far as this needs: handlers set right after the constructor, the ACK
// answered with its own PULL-DOC-REQ, every frame kept, the session made once its reply is in.
function bokeh(window, url = URL_OF_PAGE, token = TOKEN) {
  const client = { frames: [], opened: 0, session: false, sessionBeforeNext: [] }
  const socket = new window.WebSocket(url, ["bokeh", token])
  let inMessage = []
  socket.binaryType = "arraybuffer"
  socket.onopen = () => {
    client.opened += 1
  }
  socket.onmessage = (event) => {
    client.sessionBeforeNext.push(client.session)
    client.frames.push(event.data)
    inMessage.push(event.data)
    const head = JSON.parse(inMessage[0])
    if (inMessage.length < 3 + 2 * (head.num_buffers || 0)) return
    inMessage = []
    if (head.msgtype === "ACK") {
      socket.send(JSON.stringify({ msgid: "bokeh-pull", msgtype: "PULL-DOC-REQ" }))
      socket.send("{}")
      socket.send("{}")
    }
    if (head.msgtype === "PULL-DOC-REPLY" && head.reqid === "bokeh-pull") queueMicrotask(() => { client.session = true })
  }
  client.socket = socket
  return client
}

const headers = (frames) => frames.filter((f) => typeof f === "string" && f.includes("msgtype")).map((f) => JSON.parse(f))

/** A page whose early socket has opened, been acknowledged and sent our request for the document. */
async function pageThatAsked() {
  const opened = page()
  opened.run(TOKEN)
  const [early] = opened.made
  await early.open()
  await early.receive(ACK)
  await settle()
  const [ours] = headers(early.sent)
  return { ...opened, early, ours }
}

test("with the document in before Bokeh runs, Bokeh gets the open, the ACK and our reply as its own", async () => {
  const { window, made, run } = page()
  run(TOKEN)
  const [early] = made
  assert.equal(early.url, URL_OF_PAGE)
  assert.deepEqual([...early.protocols], ["bokeh", TOKEN])
  await early.open()
  await early.receive(ACK)
  await settle()
  const [ours] = headers(early.sent)
  assert.equal(ours.msgtype, "PULL-DOC-REQ")
  await early.receive([...reply(ours.msgid), ...PATCH])
  const client = bokeh(window)
  assert.equal(client.socket, early, "Bokeh is handed the open socket")
  assert.equal(made.length, 1)
  await settle()
  assert.equal(client.opened, 1)
  assert.deepEqual(headers(client.frames).map((h) => [h.msgtype, h.reqid]), [
    ["ACK", undefined],
    ["PULL-DOC-REPLY", "bokeh-pull"],
    ["PATCH-DOC", undefined],
  ])
  assert.equal(client.frames.length, ACK.length + 3 + PATCH.length)
  assert.deepEqual(headers(early.sent).map((h) => h.msgid), [ours.msgid], "Bokeh's own request is not sent")
  assert.equal(client.sessionBeforeNext.at(-PATCH.length), true, "the patch comes in a task after the reply")
  assert.equal(window.overlapEarlyConnection.outcome, "handed over")
  assert.equal(window.overlapEarlyConnection.direct, true, "Bokeh's handler takes the socket over")
  assert.equal(window.WebSocket, made[0].constructor, "the page's WebSocket is the browser's again")
  early.send("a later message")
  assert.equal(early.sent.at(-1), "a later message")
})

test("the document is asked for only once the bundles are in", async () => {
  let fetched
  const { made, run } = page({ bundlesFetched: new Promise((resolve) => { fetched = resolve }) })
  run(TOKEN)
  const [early] = made
  await early.open()
  await early.receive(ACK)
  await settle()
  assert.deepEqual(early.sent, [])
  fetched()
  await settle()
  assert.equal(headers(early.sent)[0].msgtype, "PULL-DOC-REQ")
})

test("handed over while our request is on its way: the reply, when it comes, answers Bokeh's", async () => {
  const { window, early, ours } = await pageThatAsked()
  const client = bokeh(window)
  await settle()
  assert.equal(headers(client.frames)[0].msgtype, "ACK")
  assert.equal(headers(early.sent).length, 1, "Bokeh's request is not sent")
  await early.receive([...reply(ours.msgid), ...PATCH])
  await settle()
  assert.deepEqual(headers(client.frames).map((h) => h.reqid), [undefined, "bokeh-pull", undefined])
  assert.equal(window.overlapEarlyConnection.direct, true)
})

test("handed over before the socket opened: Bokeh's open comes from the browser, once, and it asks itself", async () => {
  const { window, made, run } = page()
  run(TOKEN)
  const [early] = made
  const client = bokeh(window)
  assert.equal(client.socket, early)
  await early.open()
  await early.receive(ACK)
  await settle()
  assert.equal(client.opened, 1)
  assert.deepEqual(headers(early.sent).map((h) => h.msgid), ["bokeh-pull"], "only Bokeh's request goes out")
  await early.receive(reply("bokeh-pull"))
  await settle()
  assert.deepEqual(headers(client.frames).map((h) => h.reqid), [undefined, "bokeh-pull"])
})

test("open but its open event not yet dispatched: Bokeh sees one open, from the browser", async () => {
  const { window, made, FakeSocket, run } = page()
  run(TOKEN)
  const [early] = made
  early.readyState = FakeSocket.OPEN
  const client = bokeh(window)
  await settle()
  assert.equal(client.opened, 0)
  await early.dispatch("open", {})
  assert.equal(client.opened, 1)
})

test("a reply with buffers is handed over whole, only its header's reqid changed", async () => {
  const { window, early, ours } = await pageThatAsked()
  const payload = new ArrayBuffer(8)
  const withBuffer = reply(ours.msgid, [payload])
  await early.receive([...withBuffer, ...PATCH])
  const client = bokeh(window)
  await settle()
  const frames = client.frames.slice(ACK.length)
  assert.equal(JSON.parse(frames[0]).reqid, "bokeh-pull")
  assert.equal(JSON.parse(frames[0]).num_buffers, 1)
  assert.deepEqual(frames.slice(1, withBuffer.length), withBuffer.slice(1))
  assert.equal(frames[withBuffer.length - 1], payload)
  assert.equal(JSON.parse(frames[withBuffer.length]).msgtype, "PATCH-DOC")
})

test("a socket that closed before Bokeh asked is not handed over: Bokeh gets a new one", async () => {
  const { window, made, run } = page()
  run(TOKEN)
  made[0].close(1006, "gone")
  const client = bokeh(window)
  assert.equal(made.length, 2)
  assert.equal(client.socket, made[1])
  assert.equal(window.overlapEarlyConnection.outcome, "closed before Bokeh asked")
})

test("a WebSocket for anything else is made as usual, and the early one is closed", async () => {
  const { window, made, run } = page()
  run(TOKEN)
  const other = new window.WebSocket("ws://elsewhere.example/ws", ["chat"])
  assert.equal(made.length, 2)
  assert.equal(other, made[1])
  assert.deepEqual(made[0].closedWith, [1000, "not used"])
  assert.equal(window.overlapEarlyConnection.outcome, "not asked for")
  assert.equal(window.WebSocket, made[0].constructor)
})

test("another session's token is not handed this socket", async () => {
  const { window, made, run } = page()
  run(TOKEN)
  bokeh(window, URL_OF_PAGE, "another-token")
  assert.equal(made.length, 2)
  assert.equal(made[0].readyState, 3)
})

test("without a token nothing is opened", () => {
  const { window, made, run } = page()
  run("")
  assert.equal(made.length, 0)
  assert.equal(window.overlapEarlyConnection, undefined)
})

test("a Bokeh that sets no onmessage as it creates its socket gets the socket as it is, nothing replayed", async () => {
  const { window, early } = await pageThatAsked()
  const socket = new window.WebSocket(URL_OF_PAGE, ["bokeh", TOKEN])
  const heard = []
  socket.addEventListener("message", (event) => heard.push(event.data))  // a later BokehJS listening another way
  await settle()
  assert.equal(socket, early)
  assert.equal(window.overlapEarlyConnection.outcome, "Bokeh set no onmessage")
  assert.equal(early.onmessage, null, "the page's own handler is gone")
  await early.receive(PATCH)
  assert.deepEqual(heard, PATCH, "what comes later goes straight to Bokeh's listener")
  early.send("Bokeh's own frame")
  assert.equal(early.sent.at(-1), "Bokeh's own frame", "sends go out as Bokeh writes them")
})
