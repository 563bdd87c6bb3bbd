// The page's websocket, opened and its document asked for while the page's scripts still download.
//
// Bokeh opens a page's websocket once every bundle has arrived and run (on a phone's slow 4G about
// 2.5 s after navigation). The server builds the student's session before it sends the ACK, and
// only after the ACK does Bokeh ask for the document (PULL-DOC-REQ) and wait for it to download:
// a session build and two round trips, with the network idle. Here the page opens that websocket
// itself, from its head (same URL, same token: app/upstream/early_connection.py writes the call), so the
// session is built while the bundles download, and asks for the document once the ACK is in and
// the bundles have arrived (window.overlapBundlesFetched, from assets/bundle_loader.js), so that it
// downloads while they run instead of sharing the network with them.
//
// When Bokeh then creates a WebSocket for that URL and token, it is given this one, and what it
// would have received is played to it in order, each frame in a task of its own as the browser
// hands them over: the open, the ACK, then, as the reply to Bokeh's own PULL-DOC-REQ (which is not
// sent again), the reply to ours, and whatever came after it. Then Bokeh's handlers take the socket
// over directly. Any other WebSocket is created as usual. A socket that closed before Bokeh asked
// for it is not handed over (Bokeh opens its own); one Bokeh never asks for (another URL) is closed
// then. window.overlapEarlyConnection says what happened (tests/test_early_connection_browser.py).
//
// The frames are Bokeh's protocol (bokehjs protocol/message.ts and receiver.ts): a message is a
// header, metadata and content as text frames, then a text header and a binary payload per buffer.
(function (token) {
  const Native = window.WebSocket
  if (!token || typeof Native !== "function" || typeof Proxy !== "function" || typeof MessageChannel !== "function") {
    return
  }
  const search = window.location.search.substring(1)
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:"
  const path = window.location.pathname.replace(/\/+$/, "")
  const url = `${scheme}//${window.location.host}${path}/ws${search.length > 0 ? `?${search}` : ""}`
  const ourRequest = `early-${Math.random().toString(36).slice(2)}`
  // outcome: "waiting", then "handed over", "closed before Bokeh asked", "not asked for", "failed" or
  // "Bokeh set no onmessage".
  // asked: ours went out; frames: how many were played to Bokeh; direct: Bokeh's handlers took the
  // socket over; closed: the socket closed (by either side).
  const state = { url, outcome: "waiting", asked: false, frames: 0, direct: false, closed: false }
  window.overlapEarlyConnection = state

  let socket
  try {
    socket = new Native(url, ["bokeh", token])
  } catch (error) {
    state.outcome = "failed"
    return
  }
  socket.binaryType = "arraybuffer" // as Bokeh sets it: a buffer's payload arrives as an ArrayBuffer
  const send = (data) => Native.prototype.send.call(socket, data)

  function header(data) {
    if (typeof data !== "string") return null
    try {
      const parsed = JSON.parse(data)
      return parsed !== null && typeof parsed === "object" ? parsed : null
    } catch (error) {
      return null
    }
  }

  let opened = false // the open event has been dispatched (readyState turns OPEN before it is)
  socket.addEventListener("open", () => {
    opened = true
  })
  socket.addEventListener("close", () => {
    state.closed = true
  })

  // What is read of the messages coming in: the ACK (then ours is asked for) and the reply to ours.
  let framesLeft = 0 // frames still to come of the message being received, after its header
  let replyHeader = null // the reply's header frame, until it is handed to Bokeh
  let replied = false // the reply's header has been handed to Bokeh
  let bokehPulled = false // Bokeh's own PULL-DOC-REQ went out (ours was not sent before it)
  let bokehRequest = null // the msgid of Bokeh's PULL-DOC-REQ, the one ours answers
  function watch(event) {
    if (framesLeft > 0) {
      framesLeft -= 1
      return
    }
    const head = header(event.data) || {}
    framesLeft = 2 + 2 * (head.num_buffers || 0)
    if (head.msgtype === "ACK") Promise.resolve(window.overlapBundlesFetched).then(ask)
    if (head.reqid === ourRequest) replyHeader = event
  }
  function ask() {
    if (state.asked || bokehPulled || socket.readyState !== Native.OPEN) return
    state.asked = true
    send(JSON.stringify({ msgid: ourRequest, msgtype: "PULL-DOC-REQ" }))
    send("{}")
    send("{}")
  }

  // Frames go to Bokeh one per task, in order; the reply's header waits for Bokeh's request.
  const queue = []
  let bokehReceives = null // Bokeh's onmessage, once it has the socket
  let handing = false
  const tasks = new MessageChannel()
  tasks.port1.onmessage = () => {
    handing = false
    if (queue.length === 0) return
    let event = queue[0]
    if (event === replyHeader) {
      if (bokehRequest === null) return // handed on once Bokeh sends its request (below)
      const head = JSON.parse(event.data)
      head.reqid = bokehRequest
      event = new MessageEvent("message", { data: JSON.stringify(head) })
      replyHeader = null
      replied = true
    }
    queue.shift()
    state.frames += 1
    bokehReceives.call(socket, event)
    hand()
  }
  function hand() {
    if (handing || bokehReceives === null) return
    if (queue.length === 0) {
      // Nothing held back any more, and nothing to wait for: Bokeh takes the socket over.
      if (!state.asked || replied) {
        socket.onmessage = bokehReceives
        state.direct = true
        tasks.port1.close()
      }
      return
    }
    handing = true
    tasks.port2.postMessage(null)
  }
  socket.onmessage = (event) => {
    watch(event)
    queue.push(event)
    hand()
  }

  // Bokeh's first PULL-DOC-REQ: answered by ours when ours went out first (its frames are not sent).
  let swallowing = 0
  socket.send = function (data) {
    if (swallowing > 0) {
      swallowing -= 1
      if (swallowing === 0) delete socket.send
      return undefined
    }
    const head = header(data)
    if (head && head.msgtype === "PULL-DOC-REQ" && state.asked) {
      bokehRequest = head.msgid
      swallowing = 2 + 2 * (head.num_buffers || 0)
      hand()
      return undefined
    }
    if (head && head.msgtype === "PULL-DOC-REQ") bokehPulled = true
    delete socket.send
    return send(data)
  }

  function handOver() {
    state.outcome = "handed over"
    window.WebSocket = Native
    const wasOpen = opened
    // Bokeh sets its handlers right after the constructor returns, in the same task: its
    // onmessage is taken then, and it is played the open it missed and the frames so far.
    const ours = socket.onmessage
    queueMicrotask(() => {
      if (typeof socket.onmessage !== "function" || socket.onmessage === ours) {
        // A BokehJS that does not set onmessage as it creates its socket (this replay was checked on
        // BokehJS 3.9): stand aside, the socket is Bokeh's as it is, nothing is replayed or held back.
        state.outcome = "Bokeh set no onmessage"
        socket.onmessage = null
        if (Object.prototype.hasOwnProperty.call(socket, "send")) delete socket.send
        return
      }
      bokehReceives = socket.onmessage
      socket.onmessage = ours
      if (wasOpen && typeof socket.onopen === "function") socket.onopen(new Event("open"))
      hand()
    })
    return socket
  }
  window.WebSocket = new Proxy(Native, {
    construct(target, args, newTarget) {
      const [asked, protocols] = args
      const same = asked === url && Array.isArray(protocols) && protocols[0] === "bokeh" && protocols[1] === token
      if (same && socket.readyState <= Native.OPEN) return handOver()
      window.WebSocket = Native
      state.outcome = same ? "closed before Bokeh asked" : "not asked for"
      if (!same) socket.close(1000, "not used")
      return Reflect.construct(target, args, newTarget)
    },
  })
})
