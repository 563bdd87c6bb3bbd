// The page's script bundles, loaded so that BokehJS arrives first (app/web/delivery/bundle_loading.py writes the call).
//
// As <script src> tags in the head, every bundle is asked for at once and they share the network:
// on a phone's 4 Mbit/s, BokehJS (351 kB gzipped), which runs first, arrived last, and all five
// then ran one after the other with the network idle. Here BokehJS, and what comes before it, is
// fetched alone; the moment it has arrived the rest is asked for, and BokehJS runs while they
// come in. Then every script runs in the page's order, each once it is in, and the inline code
// that followed the tags after them. `window.overlapBundles` settles once all that has run and
// the document is parsed: Bokeh's embed code waits for it (app/web/delivery/bundle_loading.py, onload wrapper).
// `window.overlapBundlesFetched` settles once every bundle has arrived (run or not).
//
// If a bundle cannot be loaded (a dropped connection), the page says so in an alert at the top of
// <main> and asks for a reload: nothing of the page would work without it.
(function (early, late, steps, failure) {
  // The page's Content-Security-Policy runs inline code only with the response's nonce
  // (app/web/security_headers.py): the code this loader runs carries the nonce it came with.
  const nonce = (document.currentScript && document.currentScript.nonce) || ""
  const rels = document.createElement("link").relList
  // A browser without <link rel=preload> would never say that a file has arrived: it is asked for
  // each bundle by its script element alone, one after the other.
  const canPreload = Boolean(rels && rels.supports && rels.supports("preload"))
  function fetched(url) {
    if (!canPreload) return Promise.resolve()
    return new Promise((resolve) => {
      const link = document.createElement("link")
      link.rel = "preload"
      link.as = "script"
      link.href = url
      // A failed fetch is reported by the script tag that asks for the file again.
      link.onload = link.onerror = () => resolve()
      document.head.appendChild(link)
    })
  }
  function ran(step) {
    const script = document.createElement("script")
    if (nonce) script.nonce = nonce
    if (step.code !== undefined) {
      script.text = step.code
      document.head.appendChild(script)
      return Promise.resolve()
    }
    return new Promise((resolve, reject) => {
      script.src = step.src
      script.async = false
      script.onload = () => resolve()
      script.onerror = () => reject(new Error(`could not load ${step.src}`))
      document.head.appendChild(script)
    })
  }
  function parsed() {
    if (document.readyState !== "loading") return Promise.resolve()
    return new Promise((resolve) => document.addEventListener("DOMContentLoaded", resolve, { once: true }))
  }
  function say(error) {
    console.error(error)
    parsed().then(() => {
      const alert = document.createElement("p")
      alert.setAttribute("role", "alert")
      alert.className = "bundle-failure"
      alert.textContent = failure
      ;(document.getElementById("main") || document.body).prepend(alert)
    })
  }
  const earlyIn = Promise.all(early.map(fetched))
  // Every bundle in, not all run yet: the network is free from here (app/web/delivery/assets/early_connection.js
  // asks for the page's document then).
  window.overlapBundlesFetched = earlyIn.then(() => Promise.all(late.map(fetched)))
  window.overlapBundles = earlyIn
    .then(() => steps.reduce((previous, step) => previous.then(() => ran(step)), Promise.resolve()))
    .then(parsed)
  window.overlapBundles.catch(say)
})
