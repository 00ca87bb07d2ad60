//! Code generation for `#[tool]`.
//!
//! The user's function is emitted as written (minus parameter attributes that
//! only `#[tool]` understands). Next to it, inside `const _: () = { ... };`:
//! what describes and reads the arguments (see `arguments`: a table of the
//! parameters, or, when attributes need them, a hidden struct deriving
//! schemars' `JsonSchema` and perhaps serde's `Deserialize`), a call shim,
//! the schema functions and one `inventory::submit!`.
//! Type checks are spanned at the user's tokens so the compiler's errors
//! point there.
//!
//! A crate of many tools re-expands every one of them on each edit, and
//! compiles what they expand to: so the expansion is kept small, and what
//! is generic in it is generic over a parameter's type (shared by every
//! tool) rather than over a type of its own per tool.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::arguments::{self, Arguments};
use super::parse::{Flag, RULES, ToolArgs, check_tool_name};
use crate::common::call::{self, rt};
use crate::common::errors::Errors;
use crate::common::params::{AnnotatedFn, Param, parse_fn};

pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let args = ToolArgs::parse(attr, &mut errors);

    let item = match call::parse_fn_item("tool", item) {
        Ok(item) => item,
        Err(error) => return error,
    };

    let tool = parse_fn(item, &RULES, &mut errors);
    let fn_ident = &tool.item.sig.ident;

    let name = match &args.metadata.name {
        Some(lit) => lit.value(),
        None => {
            let name = fn_ident.to_string().trim_start_matches("r#").to_owned();
            if let Err(why) = check_tool_name(&name) {
                errors.spanned(
                    fn_ident,
                    format!("{why}; choose another with #[tool(name = \"...\")]"),
                );
            }
            name
        }
    };
    let description = match (&args.metadata.description, &tool.description) {
        (Some(lit), _) => Some(lit.value()),
        (None, Some(doc)) => Some(doc.clone()),
        (None, None) => {
            errors.spanned(
                fn_ident,
                format!(
                    "#[tool] `{name}` has no description, and the model needs one to know when to call it\n\
                     help: add a doc comment above the function: `/// What this tool does.`\n\
                     help: or write #[tool(description = \"What this tool does.\")]"
                ),
            );
            None
        }
    };

    let user_fn = &tool.item;
    if let Some(errors) = errors.into_compile_errors() {
        // Still emit the function, so the IDE and the rest of the crate work
        // and the user sees our error rather than a cascade.
        return quote!(#errors #user_fn);
    }
    let description = description.unwrap_or_default();
    let generated = generate(&args, &tool, &name, &description);
    quote! {
        #user_fn
        #generated
    }
}

fn generate(args: &ToolArgs, tool: &AnnotatedFn, name: &str, description: &str) -> TokenStream {
    let rt = rt();
    let sig = &tool.item.sig;
    let fn_ident = &sig.ident;
    let (ret_ty, ret_span) = call::return_type(sig);

    let arguments: Vec<&Param> = tool.arguments().collect();
    let header_checks: Vec<TokenStream> = arguments
        .iter()
        .filter(|p| p.header.is_some())
        .map(|p| header_check(p))
        .collect();
    let Arguments {
        items,
        input_schema,
        parse,
    } = arguments::describe(&arguments, fn_ident);
    let on_error = quote!(::core::result::Result::Err(error) => return error,);
    let injections = call::injections(&tool.params, &on_error);
    let requirements = call::requirements(&tool.params);
    let send_check = format_ident!("tool_future_must_be_send");
    let invoke = call::invoke(sig, &tool.params, &send_check, &on_error);
    // One `&` per step of the dispatch; see `mcp_runtime::output::Probe`.
    let kind_probe =
        quote_spanned!(ret_span=> (&&&&&&&&&#rt::Probe::<#ret_ty>::new()).__mcp_kind());
    let convert = quote_spanned!(ret_span=> #kind_probe.convert(__mcp_output));
    let use_kinds = quote! {
        #[allow(unused_imports)]
        use #rt::{
            KindText as _, KindStructuredResult as _, KindStructured as _,
            KindTextResultBadError as _, KindStructuredResultBadError as _,
            KindResultBadOk as _, KindSerializeOnly as _, KindJsonSchemaOnly as _,
            KindUnsupported as _,
        };
    };

    let (title, icons, meta) = args.metadata.field_tokens();
    let scopes = args.metadata.scopes_tokens();
    let tags = &args.tags;
    let ui = args.ui.tokens();
    let hint = |flag: &Option<Flag>| match flag {
        Some(f) => {
            let v = f.value;
            quote!(::core::option::Option::Some(#v))
        }
        None => quote!(::core::option::Option::None),
    };
    let read_only = hint(&args.read_only);
    let destructive = hint(&args.destructive);
    let idempotent = hint(&args.idempotent);
    let open_world = hint(&args.open_world);
    let timeout = match args.timeout_ms {
        Some(ms) => quote!(::core::option::Option::Some(::core::time::Duration::from_millis(#ms))),
        None => quote!(::core::option::Option::None),
    };
    let task = format_ident!("{}", args.task.unwrap_or("Forbidden"));
    let location = call::location();

    quote! {
        #[doc(hidden)]
        const _: () = {
            #use_kinds
            #items
            #(#header_checks)*

            fn __mcp_input_schema(
                generator: &mut #rt::schemars::SchemaGenerator,
            ) -> #rt::schemars::Schema {
                #input_schema
            }

            fn __mcp_output_schema(
                generator: &mut #rt::schemars::SchemaGenerator,
            ) -> ::core::option::Option<#rt::schemars::Schema> {
                #kind_probe.output_schema(generator)
            }

            fn __mcp_call(
                __mcp_arguments: #rt::serde_json::Value,
                __mcp_ctx: #rt::Context,
            ) -> #rt::BoxFuture<#rt::RawOutput> {
                ::std::boxed::Box::pin(async move {
                    #parse
                    #(#injections)*
                    let __mcp_output = #invoke;
                    #convert
                })
            }

            #rt::inventory::submit! {
                #rt::ToolDef {
                    name: #name,
                    title: #title,
                    description: #description,
                    hints: #rt::Hints {
                        read_only: #read_only,
                        destructive: #destructive,
                        idempotent: #idempotent,
                        open_world: #open_world,
                    },
                    timeout: #timeout,
                    task: #rt::TaskSupport::#task,
                    icons: #icons,
                    meta: #meta,
                    ui: #ui,
                    scopes: #scopes,
                    tags: &[#(#tags),*],
                    input_schema: __mcp_input_schema,
                    output_schema: __mcp_output_schema,
                    requirements: &[#(#requirements),*],
                    call: __mcp_call,
                    location: #location,
                }
            }
        };
    }
}

/// Requires a `#[header]` parameter's type to be a string, an integer or
/// a bool (or an `Option` of one), spanned at the type: the error sits
/// there, with `HeaderParam`'s text.
fn header_check(param: &Param) -> TokenStream {
    let rt = rt();
    let ty = &param.ty;
    let check = quote_spanned!(ty.span()=> <#ty as #rt::HeaderParam>::MIRRORED);
    quote!(const _: () = #check;)
}
