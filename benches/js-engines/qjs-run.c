/*
 * qjs-run: run one hwf workflow script under QuickJS (quickjs-ng) the way
 * hwf and benches/js-compute/node-run.mjs run it, and print its result.
 *
 * The script is read from standard input. `export const meta =` becomes a
 * plain `const meta =`; the body is the body of an async function of
 * `args` (so a top-level `return` works), strict by default (as Claude
 * Code's module scripts are; `--sloppy` runs it as hwf's Boa does today).
 * The returned promise is settled by running QuickJS's job queue, and the
 * result is printed as JSON.stringify(result) followed by a newline.
 *
 * Usage: qjs-run [--sloppy] [--mem-limit BYTES] [--stack-kb N] [ARGS_JSON] < script.js
 * ARGS_JSON defaults to null (as hwf passes no args). Exit status: 0 on a
 * result, 1 when the script throws or the promise rejects, 2 on a usage
 * or I/O error. The time spent evaluating (parse + run, without the
 * runtime's creation) goes to stderr as `eval_ms=...` so a runner can
 * tell engine time from process start.
 *
 * Builds natively (cc -O2 ... -lm) and for wasm32-wasi (zig cc -target
 * wasm32-wasi); see benches/js-engines/README.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "quickjs.h"

static char *read_all(FILE *f, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    for (;;) {
        if (n == cap) {
            char *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                return NULL;
            }
            buf = grown;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        if (got == 0)
            break;
        n += got;
    }
    *len = n;
    return buf;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void print_exception(JSContext *ctx, JSValue exc)
{
    const char *msg = JS_ToCString(ctx, exc);
    fprintf(stderr, "error: %s\n", msg ? msg : "(unprintable exception)");
    if (msg)
        JS_FreeCString(ctx, msg);
    JSValue stack = JS_GetPropertyStr(ctx, exc, "stack");
    if (!JS_IsUndefined(stack) && !JS_IsException(stack)) {
        const char *s = JS_ToCString(ctx, stack);
        if (s) {
            fprintf(stderr, "%s\n", s);
            JS_FreeCString(ctx, s);
        }
    }
    JS_FreeValue(ctx, stack);
}

/* Build `(async function (args) { "use strict"; BODY\n})` with the first
 * `export const meta =` at the start of a line made a plain declaration. */
static char *wrap(const char *src, size_t len, int strict, size_t *out_len)
{
    static const char export_meta[] = "export const meta";
    const char *head = strict ? "(async function (args) { \"use strict\";\n"
                              : "(async function (args) {\n";
    const char *tail = "\n})";
    size_t cap = strlen(head) + len + strlen(tail) + 1;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    size_t n = 0;
    memcpy(out, head, strlen(head));
    n += strlen(head);
    const char *hit = NULL;
    for (const char *p = src; p + sizeof export_meta - 1 <= src + len; p++) {
        if ((p == src || p[-1] == '\n') &&
            memcmp(p, export_meta, sizeof export_meta - 1) == 0) {
            hit = p;
            break;
        }
    }
    if (hit) {
        size_t before = (size_t)(hit - src);
        memcpy(out + n, src, before);
        n += before;
        /* "export " (7 bytes) dropped. */
        memcpy(out + n, hit + 7, len - before - 7);
        n += len - before - 7;
    } else {
        memcpy(out + n, src, len);
        n += len;
    }
    memcpy(out + n, tail, strlen(tail));
    n += strlen(tail);
    out[n] = 0;
    *out_len = n;
    return out;
}

int main(int argc, char **argv)
{
    int strict = 1;
    size_t mem_limit = 0;
    size_t stack_kb = 256;
    const char *args_json = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--sloppy") == 0) {
            strict = 0;
        } else if (strcmp(argv[i], "--mem-limit") == 0 && i + 1 < argc) {
            mem_limit = (size_t)strtoull(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--stack-kb") == 0 && i + 1 < argc) {
            stack_kb = (size_t)strtoull(argv[++i], NULL, 10);
        } else if (!args_json) {
            args_json = argv[i];
        } else {
            fprintf(stderr, "usage: qjs-run [--sloppy] [--mem-limit BYTES] [--stack-kb N] [ARGS_JSON] < script.js\n");
            return 2;
        }
    }
    size_t len;
    char *src = read_all(stdin, &len);
    if (!src) {
        fprintf(stderr, "error: could not read the script from stdin\n");
        return 2;
    }
    size_t wrapped_len;
    char *wrapped = wrap(src, len, strict, &wrapped_len);
    free(src);
    if (!wrapped) {
        fprintf(stderr, "error: out of memory\n");
        return 2;
    }

    JSRuntime *rt = JS_NewRuntime();
    if (!rt) {
        fprintf(stderr, "error: could not create the runtime\n");
        return 2;
    }
    if (mem_limit)
        JS_SetMemoryLimit(rt, mem_limit);
    /* The C stack QuickJS may use before a script's recursion throws a
     * RangeError (in wasm: the shadow stack in linear memory, 1 MiB at
     * link time). Under hwf's 1 MiB max_wasm_stack, Cranelift's frames of
     * the interpreter fill the wasm stack before 768 KiB of shadow stack
     * are used (a trap, `call stack exhausted`); 256 KiB throws first. */
    JS_SetMaxStackSize(rt, stack_kb * 1024);
    JSContext *ctx = JS_NewContext(rt);
    if (!ctx) {
        fprintf(stderr, "error: could not create the context\n");
        return 2;
    }

    double t0 = now_ms();
    int status = 0;
    JSValue fn = JS_Eval(ctx, wrapped, wrapped_len, "<script>", JS_EVAL_TYPE_GLOBAL);
    free(wrapped);
    if (JS_IsException(fn)) {
        JSValue exc = JS_GetException(ctx);
        print_exception(ctx, exc);
        JS_FreeValue(ctx, exc);
        return 1;
    }
    JSValue args = args_json ? JS_ParseJSON(ctx, args_json, strlen(args_json), "<args>") : JS_NULL;
    if (JS_IsException(args)) {
        JSValue exc = JS_GetException(ctx);
        print_exception(ctx, exc);
        return 2;
    }
    JSValue promise = JS_Call(ctx, fn, JS_UNDEFINED, 1, &args);
    JS_FreeValue(ctx, args);
    JS_FreeValue(ctx, fn);
    if (JS_IsException(promise)) {
        JSValue exc = JS_GetException(ctx);
        print_exception(ctx, exc);
        return 1;
    }
    /* Settle the promise: run every pending job. */
    for (;;) {
        JSContext *job_ctx;
        int r = JS_ExecutePendingJob(rt, &job_ctx);
        if (r <= 0) {
            if (r < 0) {
                JSValue exc = JS_GetException(job_ctx);
                print_exception(job_ctx, exc);
                return 1;
            }
            break;
        }
    }
    JSValue result;
    switch (JS_PromiseState(ctx, promise)) {
    case JS_PROMISE_FULFILLED:
        result = JS_PromiseResult(ctx, promise);
        break;
    case JS_PROMISE_REJECTED: {
        JSValue exc = JS_PromiseResult(ctx, promise);
        print_exception(ctx, exc);
        return 1;
    }
    default:
        fprintf(stderr, "error: the script's promise never settled\n");
        return 1;
    }
    JSValue text = JS_JSONStringify(ctx, result, JS_UNDEFINED, JS_UNDEFINED);
    double t1 = now_ms();
    if (JS_IsException(text)) {
        JSValue exc = JS_GetException(ctx);
        print_exception(ctx, exc);
        return 1;
    }
    size_t out_len;
    const char *out = JS_ToCStringLen(ctx, &out_len, text);
    if (!out) {
        fprintf(stderr, "error: could not convert the result\n");
        return 1;
    }
    fwrite(out, 1, out_len, stdout);
    fputc('\n', stdout);
    fflush(stdout);
    fprintf(stderr, "eval_ms=%.1f\n", t1 - t0);
    /* The process ends here; freeing the heap would only add time. */
    return status;
}
