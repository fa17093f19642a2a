"""Rule readers: the rules a handbook states that code settles by itself (see ``base`` and ``catalog``)."""
