"""Getting a page to the browser fast: compression, bundle loading, the early websocket."""
