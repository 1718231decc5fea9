meta = {"name": "pipeline_json_error", "description": "a stage whose json.loads fails: PipelineStageError names JSONDecodeError as the seed does"}
def parse(t):
    return json.loads(t)
try:
    await pipeline(["{}", "nope"], parse)
except PipelineStageError as e:
    return {"t": e.cause_type, "msg": str(e)}
