//! Code generation for `#[prompt]`.
//!
//! The user's function is emitted as written (minus parameter attributes
//! that only `#[prompt]` understands). Next to it, inside
//! `const _: () = { ... };`: the get shim (arguments parsed, `Context` and
//! `State<T>` injected, the output converted by the runtime's prompt
//! probe), each argument's enum-values function and completion shim, and
//! one `inventory::submit!` of a `PromptDef`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use super::parse::{RULES, parse_args};
use crate::common::call::{self, option_str, rt};
use crate::common::errors::Errors;
use crate::common::keys::Metadata;
use crate::common::params::{AnnotatedFn, parse_fn};
use crate::common::text_args::{is_option, param_defs, parse_statement, use_text_kinds};

pub fn prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let metadata = parse_args(attr, &mut errors);
    let item = match call::parse_fn_item("prompt", item) {
        Ok(item) => item,
        Err(error) => return error,
    };
    let prompt = parse_fn(item, &RULES, &mut errors);

    let user_fn = &prompt.item;
    if let Some(errors) = errors.into_compile_errors() {
        // Still emit the function, so the IDE and the rest of the crate work
        // and the user sees our error rather than a cascade.
        return quote!(#errors #user_fn);
    }
    let generated = generate(&metadata, &prompt);
    quote! {
        #user_fn
        #generated
    }
}

fn generate(metadata: &Metadata, prompt: &AnnotatedFn) -> TokenStream {
    let rt = rt();
    let sig = &prompt.item.sig;
    let (ret_ty, ret_span) = call::return_type(sig);
    let name = metadata.name_or(&sig.ident);

    let (items, arguments) = param_defs(prompt.arguments(), |p| !is_option(&p.ty));
    let parses = prompt.arguments().map(|param| {
        let argument = param.name();
        parse_statement(
            param,
            "parse_argument",
            quote!(__mcp_args.get(#argument)),
            quote!(::core::result::Result::Err(error) => {
                return ::core::result::Result::Err(#rt::PromptError::argument(error, #argument, #name));
            }),
        )
    });
    let injections = call::injections(
        &prompt.params,
        &quote!(::core::result::Result::Err(_) => return ::core::result::Result::Err(#rt::PromptError::misconfigured()),),
    );
    let requirements = call::requirements(&prompt.params);
    let invoke = call::invoke(
        sig,
        &prompt.params,
        &format_ident!("future_must_be_send"),
        &quote!(::core::result::Result::Err(_) => return ::core::result::Result::Err(#rt::PromptError::shutting_down()),),
    );

    // One `&` per step of the dispatch; see `mcp_runtime::prompts::output`.
    let convert = quote_spanned!(ret_span=>
        (&&&&#rt::PromptProbe::<#ret_ty>::new()).__mcp_kind().convert(__mcp_output)
    );
    let use_kinds = quote! {
        #[allow(unused_imports)]
        use #rt::{
            PromptKindMessages as _, PromptKindBadError as _,
            PromptKindResultUnsupported as _, PromptKindUnsupported as _,
        };
    };
    let use_text_kinds = use_text_kinds();

    let (title, icons, meta) = metadata.field_tokens();
    let scopes = metadata.scopes_tokens();
    let description = option_str(metadata.description_or(prompt.description.as_ref()));
    let location = call::location();

    quote! {
        #[doc(hidden)]
        const _: () = {
            #(#items)*

            fn __mcp_get(
                __mcp_args: #rt::Arguments,
                __mcp_ctx: #rt::Context,
            ) -> #rt::BoxFuture<::core::result::Result<#rt::GetPromptResult, #rt::PromptError>> {
                ::std::boxed::Box::pin(async move {
                    #use_kinds
                    #use_text_kinds
                    #(#parses)*
                    #(#injections)*
                    let __mcp_output = #invoke;
                    #convert
                })
            }

            #rt::inventory::submit! {
                #rt::PromptDef {
                    name: #name,
                    title: #title,
                    description: #description,
                    icons: #icons,
                    meta: #meta,
                    scopes: #scopes,
                    arguments: &[#(#arguments),*],
                    requirements: &[#(#requirements),*],
                    get: __mcp_get,
                    location: #location,
                }
            }
        };
    }
}
