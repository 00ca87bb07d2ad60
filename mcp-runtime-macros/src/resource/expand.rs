//! Code generation for `#[resource]`.
//!
//! The user's function is emitted as written (minus parameter attributes
//! that only `#[resource]` understands). Next to it, inside
//! `const _: () = { ... };`: the read shim (variables parsed, `Context` and
//! `State<T>` injected, the output converted by the runtime's resource
//! probe), the default MIME type of the return type, each variable's
//! enum-values function and completion shim, and one `inventory::submit!`
//! of a `ResourceDef`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::LitStr;

use super::parse::{RULES, ResourceArgs};
use crate::common::call::{self, option_str, rt};
use crate::common::errors::Errors;
use crate::common::params::{AnnotatedFn, parse_fn};
use crate::common::text_args::{param_defs, parse_statement, use_text_kinds};

pub fn resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let args = ResourceArgs::parse(attr, &mut errors);
    let item = match call::parse_fn_item("resource", item) {
        Ok(item) => item,
        Err(error) => return error,
    };
    let resource = parse_fn(item, &RULES, &mut errors);
    args.check_variables(&resource, &mut errors);

    let user_fn = &resource.item;
    match (errors.into_compile_errors(), &args.uri) {
        (None, Some(uri)) => {
            let generated = generate(&args, uri, &resource);
            quote! {
                #user_fn
                #generated
            }
        }
        // Still emit the function, so the IDE and the rest of the crate work
        // and the user sees our error rather than a cascade.
        (errors, _) => quote!(#errors #user_fn),
    }
}

fn generate(args: &ResourceArgs, uri: &LitStr, resource: &AnnotatedFn) -> TokenStream {
    let rt = rt();
    let sig = &resource.item.sig;
    let (ret_ty, ret_span) = call::return_type(sig);

    let (items, params) = param_defs(resource.arguments(), |_| true);
    let parses = resource.arguments().map(|param| {
        let name = param.name();
        parse_statement(
            param,
            "parse_variable",
            quote!(__mcp_req.var(#name)),
            // A value that does not parse names no resource.
            quote!(::core::result::Result::Err(_) => return ::core::result::Result::Err(#rt::ReadError::NotFound),),
        )
    });
    let injections = call::injections(
        &resource.params,
        &quote!(::core::result::Result::Err(_) => return ::core::result::Result::Err(#rt::ReadError::misconfigured()),),
    );
    let requirements = call::requirements(&resource.params);
    let invoke = call::invoke(
        sig,
        &resource.params,
        &format_ident!("future_must_be_send"),
        &quote!(::core::result::Result::Err(_) => return ::core::result::Result::Err(#rt::ReadError::shutting_down()),),
    );

    // One `&` per step of the dispatch; see `mcp_runtime::resources::output`.
    let kind_probe = quote_spanned!(ret_span=>
        (&&&&&&&&&&&&&&&#rt::ResourceProbe::<#ret_ty>::new()).__mcp_kind()
    );
    let mime_type = option_str(args.mime_type());
    let convert =
        quote_spanned!(ret_span=> #kind_probe.convert(__mcp_output, &__mcp_req.uri, #mime_type));
    let use_kinds = quote! {
        #[allow(unused_imports)]
        use #rt::{
            ResourceKindContents as _, ResourceKindOptionContents as _,
            ResourceKindResultContents as _, ResourceKindResultOptionContents as _,
            ResourceKindResultOptionJson as _, ResourceKindResultJson as _,
            ResourceKindOptionJson as _, ResourceKindBadErrorContents as _,
            ResourceKindBadErrorOptionContents as _, ResourceKindBadErrorJson as _,
            ResourceKindJson as _, ResourceKindResultOptionUnsupported as _,
            ResourceKindResultUnsupported as _, ResourceKindOptionUnsupported as _,
            ResourceKindUnsupported as _,
        };
    };
    let use_text_kinds = use_text_kinds();

    let uri = uri.value();
    let name = args.metadata.name_or(&sig.ident);
    let (title, icons, meta) = args.metadata.field_tokens();
    let scopes = args.metadata.scopes_tokens();
    let description = option_str(args.metadata.description_or(resource.description.as_ref()));
    let view = match &args.view {
        Some(view) => view.tokens(),
        None => quote!(::core::option::Option::None),
    };
    let location = call::location();

    quote! {
        #[doc(hidden)]
        const _: () = {
            #(#items)*

            fn __mcp_default_mime_type() -> ::core::option::Option<&'static str> {
                #use_kinds
                #kind_probe.default_mime_type()
            }

            fn __mcp_read(
                __mcp_req: #rt::ReadRequest,
                __mcp_ctx: #rt::Context,
            ) -> #rt::BoxFuture<#rt::ReadResult> {
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
                #rt::ResourceDef {
                    uri: #uri,
                    name: #name,
                    title: #title,
                    description: #description,
                    mime_type: #mime_type,
                    default_mime_type: __mcp_default_mime_type,
                    icons: #icons,
                    meta: #meta,
                    view: #view,
                    scopes: #scopes,
                    params: &[#(#params),*],
                    requirements: &[#(#requirements),*],
                    read: __mcp_read,
                    location: #location,
                }
            }
        };
    }
}
