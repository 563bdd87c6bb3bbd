// The line of Bokeh's embed wrapper (bokeh.embed.wrappers._ONLOAD, as Panel sets it in
// panel/io/resources.py) that runs the embed code, `fn`: where the page's bundles come from the
// course's loader (app/web/delivery/assets/bundle_loader.js), once they have run; elsewhere as Panel runs it.
// The last line is Panel's own, behind an `else` (app/web/delivery/bundle_loading.py finds Panel's by it).
  if (window.overlapBundles) window.overlapBundles.then(fn);
  else if (document.readyState != "loading") fn();
