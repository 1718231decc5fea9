//! Links QuickJS-ng (through rquickjs-sys, its C compiled by `zig cc`)
//! into a wasm32-wasip2 program: evaluates one ES2024 expression and
//! prints it. A build check only; hwf would use the safe `rquickjs` API.
use rquickjs_sys as q;
use std::ffi::{CStr, CString};

fn main() {
    let src = CString::new(
        "[3,1,2].toSorted().join('-') + ' ' + JSON.stringify(Object.groupBy([1,2,3], x => x % 2 ? 'odd' : 'even'))",
    )
    .expect("no NUL in the source");
    let name = CString::new("<probe>").expect("no NUL in the name");
    // SAFETY: the runtime and context are created here and used on this
    // thread only; the source and name outlive the calls.
    unsafe {
        let rt = q::JS_NewRuntime();
        let ctx = q::JS_NewContext(rt);
        let v = q::JS_Eval(ctx, src.as_ptr(), src.as_bytes().len() as _, name.as_ptr(), q::JS_EVAL_TYPE_GLOBAL as i32);
        let s = q::JS_ToCStringLen2(ctx, std::ptr::null_mut(), v, false);
        if s.is_null() {
            eprintln!("evaluation failed");
            std::process::exit(1);
        }
        println!("{}", CStr::from_ptr(s).to_string_lossy());
    }
}
