// The roofline plot's hover text at the hovered I: the model's min(P, I·B) and which roof bounds it
// (labs/roofline/model.py attainable and regime). A CustomJSHover body run after formats.js
// (labs/roofline/view.py); args in scope: info (the roof's source, columns P and B) and Bokeh's
// special_vars (x: the hovered I). Node's tests require() it with formats.js's functions as globals.
function roofline_hover(I, P, B) {
  const perf = Math.min(P, I * B)
  const side = I * B < P ? "memory-bound" : (I * B > P ? "compute-bound" : "at the ridge")
  return `I = ${significant(I)} FLOP/byte: attainable = ${significant(perf)} GFLOP/s (${side})`
}

// In the page Bokeh calls this body with special_vars; under Node it is a module.
if (typeof special_vars !== "undefined") return roofline_hover(special_vars.x, info.data.P[0], info.data.B[0])
module.exports = { roofline_hover }
