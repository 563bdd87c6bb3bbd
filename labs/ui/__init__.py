"""View pieces shared by the labs: a named region, typed number fields, browser playback."""
