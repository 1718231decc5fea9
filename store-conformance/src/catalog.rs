//! `ScriptCatalog`, `EventLog`, `BlobStore`, and names.

use crate::{CREDENTIAL, Check, Outcome, Subject, Verdict, ensure, fails_with, ok};
use hwf_core::error::ErrorCode;
use hwf_core::lang::Language;
use hwf_core::model::{ExternalEvent, ScriptMeta};
use hwf_core::store::BlobRef;
use serde_json::json;

pub(crate) const CHECKS: [(&str, Check); 9] = [
    (
        "scripts: versions increase from 1 and old versions stay readable",
        |s| Box::pin(versions(s)),
    ),
    (
        "scripts: a taken name without replace is refused and changes nothing",
        |s| Box::pin(no_replace(s)),
    ),
    ("scripts: unknown names and versions are not_found", |s| {
        Box::pin(unknown(s))
    }),
    ("names: unsafe script names are refused with invalid_name", |s| {
        Box::pin(bad_names(s))
    }),
    (
        "events: idempotent by (source, id), versions 1, 2, …, since(v)",
        |s| Box::pin(events(s)),
    ),
    (
        "events: free text stored redacted, credential-shaped ids refused",
        |s| Box::pin(events_redacted(s)),
    ),
    (
        "blobs: content-addressed round trip; credentials in scripts refused",
        |s| Box::pin(blobs(s)),
    ),
    (
        "triggers: put replaces, listed in name order (also through another handle), remove says whether it was there",
        |s| Box::pin(triggers(s)),
    ),
    (
        "kanban: the board is stored and cleared; a card is created once per id, read, replaced, listed by creation",
        |s| Box::pin(kanban(s)),
    ),
];

async fn kanban(s: &Subject) -> Outcome {
    let k = &s.stores.kanban;
    ensure!(
        ok(k.kanban_board().await, "board")?.is_none(),
        "a fresh store has no board"
    );
    ok(
        k.put_kanban_board(Some(&json!({"board": "builtin"}))).await,
        "put board",
    )?;
    ensure!(
        ok(k.kanban_board().await, "board")? == Some(json!({"board": "builtin"})),
        "the board as stored"
    );
    let first = json!({"id": "kb_1", "status": "ready", "created_at_ms": 2});
    let (card, created) = ok(k.create_card(&first).await, "create")?;
    ensure!(created && card == first, "created: {card}");
    let (card, created) = ok(
        k.create_card(&json!({"id": "kb_1", "status": "other", "created_at_ms": 3}))
            .await,
        "create again",
    )?;
    ensure!(
        !created && card == first,
        "a second creator gets the first's card: {card}"
    );
    if let Some(other) = &s.other {
        let theirs = ok(other.kanban.card("kb_1").await, "read through the other handle")?;
        ensure!(theirs == first, "the other handle read {theirs}");
    }
    let done = json!({"id": "kb_1", "status": "done", "created_at_ms": 2});
    ok(k.replace_card(&done).await, "replace")?;
    ensure!(ok(k.card("kb_1").await, "read")? == done, "the replaced card");
    let older = json!({"id": "kb_0", "status": "ready", "created_at_ms": 1});
    ok(k.create_card(&older).await, "create an older card")?;
    let all = ok(k.cards().await, "list")?;
    ensure!(all == vec![older, done], "listed by creation: {all:?}");
    fails_with(k.card("kb_nope").await, ErrorCode::NotFound, "read an unknown card")?;
    fails_with(
        k.replace_card(&json!({"id": "kb_nope"})).await,
        ErrorCode::NotFound,
        "replace an unknown card",
    )?;
    for bad in ["../x", "", "a b"] {
        fails_with(k.card(bad).await, ErrorCode::InvalidArgs, &format!("read {bad:?}"))?;
        fails_with(
            k.create_card(&json!({"id": bad})).await,
            ErrorCode::InvalidArgs,
            &format!("create {bad:?}"),
        )?;
    }
    ok(k.put_kanban_board(None).await, "clear board")?;
    ensure!(ok(k.kanban_board().await, "board")?.is_none(), "cleared");
    Ok(Verdict::Pass)
}

async fn triggers(s: &Subject) -> Outcome {
    let t = &s.stores.triggers;
    ensure!(
        ok(t.triggers().await, "list")?.is_empty(),
        "a fresh store holds no triggers"
    );
    ok(t.put_trigger("nightly", &json!({"cron": "0 3 * * *"})).await, "put")?;
    ok(t.put_trigger("on-push", &json!({"on": {"type": "push"}})).await, "put")?;
    ok(t.put_trigger("nightly", &json!({"cron": "0 4 * * *"})).await, "replace")?;
    let want = vec![
        ("nightly".to_owned(), json!({"cron": "0 4 * * *"})),
        ("on-push".to_owned(), json!({"on": {"type": "push"}})),
    ];
    let got = ok(t.triggers().await, "list")?;
    ensure!(got == want, "listed {got:?}, expected {want:?}");
    if let Some(other) = &s.other {
        let theirs = ok(other.triggers.triggers().await, "list through the other handle")?;
        ensure!(theirs == want, "the other handle listed {theirs:?}");
    }
    ensure!(
        ok(t.remove_trigger("nightly").await, "remove")?,
        "a stored trigger was removed"
    );
    ensure!(!ok(t.remove_trigger("nightly").await, "remove again")?, "removed twice");
    let got = ok(t.triggers().await, "list")?;
    ensure!(got == want[1..], "after remove: {got:?}");
    for bad in ["../x", "", "a/b"] {
        fails_with(
            t.put_trigger(bad, &json!({})).await,
            ErrorCode::InvalidName,
            &format!("put {bad:?}"),
        )?;
        fails_with(
            t.remove_trigger(bad).await,
            ErrorCode::InvalidName,
            &format!("remove {bad:?}"),
        )?;
    }
    Ok(Verdict::Pass)
}

fn meta(language: &str) -> ScriptMeta {
    ScriptMeta {
        name: "ignored".into(),
        version: 0,
        digest: "b3:00".into(),
        size: 3,
        language: language.into(),
        saved_at_ms: 1,
        meta: json!({"phases": ["a"]}),
        imports: vec!["hermes:workflow/host".into()],
    }
}

async fn versions(s: &Subject) -> Outcome {
    let scripts = &s.stores.scripts;
    let mut saved = Vec::new();
    for (i, lang) in ["wasm", "js", "json", "python"].into_iter().enumerate() {
        let bytes = format!("version {i} in {lang}").into_bytes();
        let m = ok(scripts.save("flow", &bytes, meta(lang), i > 0).await, "save")?;
        ensure!(
            m.name == "flow" && m.version == i as u32 + 1,
            "saved as {} v{}",
            m.name,
            m.version
        );
        saved.push((m, bytes));
    }
    ensure!(
        ok(scripts.versions("flow").await, "versions")? == [1, 2, 3, 4],
        "versions ascending from 1"
    );
    for (m, bytes) in &saved {
        let read = ok(scripts.meta("flow", Some(m.version)).await, "meta")?;
        ensure!(&read == m, "meta v{}: {read:?}", m.version);
        let b = ok(scripts.bytes("flow", m.version).await, "bytes")?;
        ensure!(&b == bytes, "bytes of v{} differ", m.version);
    }
    let latest = ok(scripts.meta("flow", None).await, "latest")?;
    ensure!(latest.version == 4, "latest is v{}", latest.version);
    ok(scripts.save("another", b"x", meta("wasm"), false).await, "save another")?;
    let names = ok(scripts.names().await, "names")?;
    ensure!(names == ["another", "flow"], "names {names:?}");
    Ok(Verdict::Pass)
}

async fn no_replace(s: &Subject) -> Outcome {
    let scripts = &s.stores.scripts;
    ok(scripts.save("flow", b"one", meta("wasm"), false).await, "save")?;
    fails_with(
        scripts.save("flow", b"two", meta("wasm"), false).await,
        ErrorCode::AlreadyExists,
        "save without replace",
    )?;
    ensure!(
        ok(scripts.versions("flow").await, "versions")? == [1],
        "a refused save added a version"
    );
    ensure!(ok(scripts.bytes("flow", 1).await, "bytes")? == b"one", "v1 changed");
    Ok(Verdict::Pass)
}

async fn unknown(s: &Subject) -> Outcome {
    let scripts = &s.stores.scripts;
    ensure!(
        ok(scripts.names().await, "names")?.is_empty(),
        "a fresh catalog is empty"
    );
    let nf = ErrorCode::NotFound;
    fails_with(scripts.meta("nope", None).await, nf, "meta of an unknown name")?;
    fails_with(scripts.versions("nope").await, nf, "versions of an unknown name")?;
    fails_with(scripts.bytes("nope", 1).await, nf, "bytes of an unknown name")?;
    ok(scripts.save("flow", b"one", meta("wasm"), false).await, "save")?;
    fails_with(scripts.meta("flow", Some(2)).await, nf, "meta of an unknown version")?;
    fails_with(scripts.bytes("flow", 2).await, nf, "bytes of an unknown version")?;
    Ok(Verdict::Pass)
}

async fn bad_names(s: &Subject) -> Outcome {
    let scripts = &s.stores.scripts;
    let long = "a".repeat(129);
    for bad in ["../x", "", ".hidden", "a/b", "a..b", long.as_str()] {
        let code = ErrorCode::InvalidName;
        fails_with(
            scripts.save(bad, b"x", meta("wasm"), true).await,
            code,
            &format!("save {bad:?}"),
        )?;
        fails_with(scripts.meta(bad, None).await, code, &format!("meta {bad:?}"))?;
        fails_with(scripts.versions(bad).await, code, &format!("versions {bad:?}"))?;
        fails_with(scripts.bytes(bad, 1).await, code, &format!("bytes {bad:?}"))?;
    }
    ensure!(
        ok(scripts.names().await, "names")?.is_empty(),
        "a refused name was stored"
    );
    Ok(Verdict::Pass)
}

fn event(source: &str, id: &str) -> ExternalEvent {
    ExternalEvent {
        version: 0,
        id: id.into(),
        source: source.into(),
        kind: "pull_request.merged".into(),
        subject: Some("org/repo#42".into()),
        payload: json!({"n": 1}),
        ts_ms: 5,
        digest: None,
    }
}

async fn events(s: &Subject) -> Outcome {
    let log = &s.stores.events;
    ensure!(ok(log.since(0).await, "since")?.is_empty(), "a fresh log is empty");
    let (a, new) = ok(log.append(event("github", "e1")).await, "append")?;
    ensure!(new && a.version == 1, "first event: new {new}, v{}", a.version);
    let (b, new) = ok(log.append(event("ci", "e1")).await, "append same id, other source")?;
    ensure!(
        new && b.version == 2,
        "same id from another source: new {new}, v{}",
        b.version
    );
    let mut repeat = event("github", "e1");
    repeat.payload = json!({"n": 2});
    let (c, new) = ok(log.append(repeat).await, "repeat")?;
    ensure!(!new && c == a, "a repeat returned new {new}, {c:?}");
    let (d, _) = ok(log.append(event("github", "e2")).await, "append")?;
    ensure!(d.version == 3, "third event v{}", d.version);
    let all = ok(log.since(0).await, "since 0")?;
    ensure!(all == [a, b.clone(), d.clone()], "all: {all:?}");
    ensure!(ok(log.since(1).await, "since 1")? == [b, d], "since 1");
    ensure!(ok(log.since(3).await, "since 3")?.is_empty(), "since the last version");
    // A webhook signed over its body alone: the same body from the same
    // source under a new id is the same event; from another source, new.
    let signed = |source: &str, id: &str| {
        let mut e = event(source, id);
        e.digest = Some("d1".repeat(32));
        e
    };
    let (g, new) = ok(log.append(signed("github", "delivery-1")).await, "append with a digest")?;
    ensure!(new && g.digest.is_some(), "digest kept: new {new}, {g:?}");
    let (h, new) = ok(log.append(signed("github", "delivery-2")).await, "replayed body")?;
    ensure!(!new && h == g, "a replayed body is the same event: new {new}, {h:?}");
    let (_, new) = ok(log.append(signed("ci", "delivery-2")).await, "same body, other source")?;
    ensure!(new, "the same body from another source is another event");
    Ok(Verdict::Pass)
}

async fn events_redacted(s: &Subject) -> Outcome {
    let log = &s.stores.events;
    let mut e = event("github", "e1");
    e.subject = Some(format!("leak {CREDENTIAL}"));
    e.payload = json!({"authorization": format!("Bearer {CREDENTIAL}")});
    let (stored, _) = ok(log.append(e).await, "append")?;
    let text = serde_json::to_string(&ok(log.since(0).await, "since")?).map_err(|e| e.to_string())?;
    ensure!(!text.contains(CREDENTIAL), "a credential was stored: {text}");
    ensure!(stored.id == "e1", "the event keeps its id");
    fails_with(
        log.append(event("github", CREDENTIAL)).await,
        ErrorCode::InvalidArgs,
        "a credential id",
    )?;
    Ok(Verdict::Pass)
}

async fn blobs(s: &Subject) -> Outcome {
    let blobs = &s.stores.blobs;
    let js = b"export default async function run() { return 1 }".as_slice();
    let r = ok(blobs.put(js, Language::Js).await, "put")?;
    ensure!(r == BlobRef::of(js, Language::Js), "ref {:?}", r.as_str());
    ensure!(
        ok(blobs.put(js, Language::Js).await, "put again")? == r,
        "same bytes, another ref"
    );
    ensure!(ok(blobs.get(&r).await, "get")? == js, "bytes differ");
    let wasm = b"\0asm\x0d\0\x01\0".as_slice();
    let w = ok(blobs.put(wasm, Language::Wasm).await, "put wasm")?;
    ensure!(w != r && ok(blobs.get(&w).await, "get wasm")? == wasm, "wasm blob");
    let never = BlobRef::of(b"never put", Language::Json);
    fails_with(blobs.get(&never).await, ErrorCode::NotFound, "a ref never put")?;
    let secret = format!("const key = \"{CREDENTIAL}\";");
    fails_with(
        blobs.put(secret.as_bytes(), Language::Js).await,
        ErrorCode::InvalidScript,
        "a script holding a credential",
    )?;
    fails_with(
        blobs.get(&BlobRef::of(secret.as_bytes(), Language::Js)).await,
        ErrorCode::NotFound,
        "the refused script was stored",
    )?;
    Ok(Verdict::Pass)
}
