meta = {"name": "g01", "description": "meta with extra keys and phase ids", "version": 3, "tags": ["a", "b"], "phases": [{"title": "scan", "id": "p1", "detail": "look"}, "  report  "], "inputs": {"repo": "string"}}
phase("scan")
phase("report")
return [meta["version"], meta["phases"][1], len(meta)]
