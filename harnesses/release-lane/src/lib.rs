//! A release lane for one pull request: QA and review run in parallel on
//! the exact head commit; the lane recommends a release only when both pass
//! and both report having checked that exact head.
//!
//! Args: `{"repo": "org/app", "number": 42, "head_sha": "<40 hex>"}` (or the
//! same under `pull_request`). Result: `{"repo", "number", "head_sha",
//! "recommendation": "release" | "hold", "exact_head": bool, "qa", "review",
//! "reasons": [...]}`.

use hwf_guest::{Error, Harness, Meta, Result, Value, info, json, parallel, phase, prompt};

struct ReleaseLane;

impl Harness for ReleaseLane {
    fn meta() -> Meta {
        Meta::new(
            "release-lane",
            "QA and review in parallel on a PR's exact head, then one release recommendation.",
        )
        .when_to_use("A pull request is ready and someone asks whether to ship it.")
        .phase_with_detail("gate", "QA and review agents, in parallel")
        .phase_with_detail("decide", "both must pass on the exact head commit")
    }

    fn run(args: Value) -> Result<Value> {
        let pr = if args["pull_request"].is_object() {
            &args["pull_request"]
        } else {
            &args
        };
        let repo = pr["repo"]
            .as_str()
            .ok_or_else(|| Error::msg("invalid_args: repo is required"))?;
        let number = pr["number"]
            .as_u64()
            .ok_or_else(|| Error::msg("invalid_args: number is required"))?;
        let sha = pr["head_sha"]
            .as_str()
            .ok_or_else(|| Error::msg("invalid_args: head_sha is required"))?;
        let schema = json!({"verdict": "string", "head_sha": "string", "notes": "string"});
        let context = json!({"repo": repo, "number": number, "head_sha": sha});

        phase("gate");
        let gates = parallel(
            [
                prompt(format!("Run QA for {repo}#{number} at {sha}"))
                    .label("qa")
                    .phase("gate")
                    .schema(schema.clone())
                    .context(context.clone())
                    .task(),
                prompt(format!("Review {repo}#{number} at {sha}"))
                    .label("review")
                    .phase("gate")
                    .schema(schema)
                    .context(context)
                    .task(),
            ],
            false,
        );

        phase("decide");
        let mut reasons = Vec::new();
        let mut verdicts = Vec::new();
        let mut exact = true;
        for (name, gate, pass) in [("qa", &gates[0], "pass"), ("review", &gates[1], "approve")] {
            match gate {
                Ok(v) => {
                    let verdict = v["verdict"].as_str().unwrap_or("").to_owned();
                    if v["head_sha"].as_str() != Some(sha) {
                        exact = false;
                        reasons.push(format!("{name} checked {} instead of the head {sha}", v["head_sha"]));
                    }
                    if verdict != pass {
                        reasons.push(format!("{name} verdict is {verdict:?}, not {pass:?}"));
                    }
                    verdicts.push(Value::String(verdict));
                }
                Err(e) => {
                    reasons.push(format!("{name} did not answer: {}", e.code()));
                    verdicts.push(Value::Null);
                }
            }
        }
        let recommendation = if reasons.is_empty() { "release" } else { "hold" };
        info(format!("{repo}#{number} at {sha}: {recommendation}"));
        Ok(json!({
            "repo": repo,
            "number": number,
            "head_sha": sha,
            "recommendation": recommendation,
            "exact_head": exact,
            "qa": verdicts[0],
            "review": verdicts[1],
            "reasons": reasons,
        }))
    }
}

hwf_guest::export_harness!(ReleaseLane);
