//! What prompt arguments and template variables share: both arrive as
//! text, parsed into the parameter's type by the runtime's text probe; both
//! are described to the client by a `ParamDef` (name, docs, required, enum
//! values) and may name a completion function with `#[complete(path)]`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::call::{option_str, rt};
use super::params::Param;

/// `use` of the traits of the text probe, which the generated method
/// calls need in scope.
pub fn use_text_kinds() -> TokenStream {
    let rt = rt();
    quote! {
        #[allow(unused_imports)]
        use #rt::{
            TextOptionalFromStr as _, TextOptionalDeserialize as _, TextFromStr as _,
            TextDeserialize as _, TextOptionalUnparseable as _, TextUnparseable as _,
        };
    }
}

/// `let <binding> = <parse of source>;` for one argument, with the probe (one
/// `&` per step of its dispatch; see `mcp_runtime::text_param`) and
/// `method` (`parse_argument` or `parse_variable`, whose bounds carry the
/// diagnostic of a type that cannot be parsed) spanned at the parameter's
/// type. `source` is an `Option<&str>` expression; `on_error` is the match
/// arm for an `Err(TextParamError)`.
pub fn parse_statement(
    param: &Param,
    method: &str,
    source: TokenStream,
    on_error: TokenStream,
) -> TokenStream {
    let rt = rt();
    let binding = param.binding();
    let ty = &param.ty;
    let method = format_ident!("{}", method);
    let parse = quote_spanned!(ty.span()=>
        (&&&&&&#rt::TextProbe::<#ty>::new()).__mcp_kind().#method(#source)
    );
    quote! {
        let #binding = match #parse {
            ::core::result::Result::Ok(value) => value,
            #on_error
        };
    }
}

/// For each argument: the items its `ParamDef` points at (its enum-values
/// function, its completion shim), and the `ParamDef` itself.
pub fn param_defs<'a>(
    arguments: impl Iterator<Item = &'a Param>,
    required: impl Fn(&Param) -> bool,
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let rt = rt();
    let mut items = Vec::new();
    let mut defs = Vec::new();
    for param in arguments {
        let name = param.name();
        let ty = &param.ty;
        let enum_values = format_ident!("__mcp_enum_values_{}", name);
        items.push(quote! {
            fn #enum_values() -> ::core::option::Option<::std::vec::Vec<::std::string::String>> {
                #[allow(unused_imports)]
                use #rt::{EnumValuesOptional as _, EnumValuesSchema as _, EnumValuesNone as _};
                (&&&#rt::EnumProbe::<#ty>::new()).__mcp_kind().values()
            }
        });
        let complete = match &param.complete {
            Some(path) => {
                let shim = format_ident!("__mcp_complete_{}", name);
                // Spanned at the path, the call included: a function of
                // the wrong shape is reported under it, with `Completer`'s
                // text.
                let call = quote_spanned!(path.span()=>
                    ::mcp_runtime::__private::Completer::complete(&#path, request)
                );
                items.push(quote! {
                    fn #shim(request: #rt::CompleteRequest) -> #rt::BoxFuture<::std::vec::Vec<::std::string::String>> {
                        #call
                    }
                });
                quote!(::core::option::Option::Some(#shim))
            }
            None => quote!(::core::option::Option::None),
        };
        let description = option_str(param.description.clone());
        let required = required(param);
        defs.push(quote! {
            #rt::ParamDef {
                name: #name,
                description: #description,
                required: #required,
                complete: #complete,
                enum_values: #enum_values,
            }
        });
    }
    (items, defs)
}

/// Whether a type is written `Option<..>`: an optional prompt argument.
/// Read from the syntax because `ParamDef::required` is a constant; the
/// parse itself goes by the type, so an alias of `Option` still parses as
/// optional and is only listed as required.
pub fn is_option(ty: &syn::Type) -> bool {
    let syn::Type::Path(path) = ty else {
        return false;
    };
    path.qself.is_none() && path.path.segments.last().is_some_and(|last| {
        last.ident == "Option"
            && matches!(&last.arguments, syn::PathArguments::AngleBracketed(a) if a.args.len() == 1)
    })
}
