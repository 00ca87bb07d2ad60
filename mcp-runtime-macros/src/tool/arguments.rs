//! How a `#[tool]`'s arguments are described (the input schema) and read
//! (the call shim's bindings), in one of three ways, cheapest first:
//!
//! - `table`: no parameter carries `#[serde]`/`#[schemars]`. A static table
//!   of the parameters, which the runtime builds the schema from, and one
//!   `ParamVTable::take` per parameter.
//! - `schema_derive`: the attributes only describe (`#[schemars(..)]`) or
//!   name and default a parameter (`#[serde(rename = "..")]`, a bare
//!   `#[serde(default)]`). A struct of the parameters with schemars' derive
//!   alone gives the schema; the arguments are read as in `table`.
//! - `derived`: any other `#[serde]` attribute. A struct of newtypes with
//!   serde's and schemars' derives, read with `parse_arguments`.
//!
//! In every way, each parameter's type is named once as
//! `<T as DeserializeAndJsonSchema>`, at the user's type, so a type that
//! cannot be a parameter is one error there. A crate of many tools
//! re-expands and recompiles all of them on each edit, so the cheaper ways
//! are the common ones: what is generic in them is generic over a
//! parameter's type, shared by every tool.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::common::call::rt;
use crate::common::params::Param;

/// How the expansion describes and reads a tool's arguments: the items it
/// needs, the body of `__mcp_input_schema`, and the statements that bind
/// each argument from `__mcp_arguments`.
pub struct Arguments {
    pub items: TokenStream,
    pub input_schema: TokenStream,
    pub parse: TokenStream,
}

/// The cheapest way that keeps every attribute's meaning.
pub fn describe(arguments: &[&Param], fn_ident: &syn::Ident) -> Arguments {
    if arguments.iter().all(|p| p.forwarded.is_empty()) {
        return table(arguments);
    }
    let reads: Option<Vec<Read>> = arguments.iter().map(|p| Read::of(p)).collect();
    match reads {
        Some(reads) => schema_derive(arguments, &reads, fn_ident),
        None => derived(arguments, fn_ident),
    }
}

/// How `take` reads one argument: under which key, and whether a missing
/// one is the type's `Default` (a bare `#[serde(default)]`).
struct Read {
    key: String,
    default: bool,
}

impl Read {
    /// `None` if an attribute changes how the parameter is read in a way
    /// only serde's derive applies, or is not understood here (its errors
    /// are then the derives' to report).
    fn of(param: &Param) -> Option<Read> {
        let forwarded = Forwarded::of(param);
        forwarded.describes_only.then(|| Read {
            key: forwarded.rename.unwrap_or_else(|| param.name()),
            default: forwarded.default,
        })
    }
}

/// What a parameter's forwarded `#[serde]`/`#[schemars]` attributes ask,
/// read once for whichever way describes the tool.
struct Forwarded {
    /// `#[serde(rename = "..")]`.
    rename: Option<String>,
    /// A bare `#[serde(default)]`: the type's `Default` when missing.
    default: bool,
    /// `#[serde(with = ..)]`, `deserialize_with = ..` or `default = ..`:
    /// user functions that produce the parameter type itself.
    custom_deserializer: bool,
    /// Every attribute only describes, renames or defaults the parameter,
    /// and each was understood here.
    describes_only: bool,
}

impl Forwarded {
    fn of(param: &Param) -> Forwarded {
        let mut forwarded = Forwarded {
            rename: None,
            default: false,
            custom_deserializer: false,
            describes_only: true,
        };
        for attr in &param.forwarded {
            let serde = attr.path().is_ident("serde");
            // Errors here are serde's and schemars' to report, with their
            // own messages; an attribute not understood goes the derived way.
            let parsed = attr.parse_nested_meta(|meta| {
                let key = meta.path.get_ident().map(ToString::to_string);
                let key = key.as_deref().unwrap_or("");
                let describes = !serde && !SCHEMARS_READS.contains(&key);
                if meta.input.peek(syn::Token![=]) {
                    let value: syn::Expr = meta.value()?.parse()?;
                    match (serde, key, value) {
                        (
                            true,
                            "rename",
                            syn::Expr::Lit(syn::ExprLit {
                                lit: syn::Lit::Str(name),
                                ..
                            }),
                        ) => forwarded.rename = Some(name.value()),
                        (true, "with" | "deserialize_with" | "default", _) => {
                            forwarded.custom_deserializer = true;
                            forwarded.describes_only = false;
                        }
                        _ => forwarded.describes_only &= describes,
                    }
                } else if meta.input.peek(syn::token::Paren) {
                    let content;
                    syn::parenthesized!(content in meta.input);
                    let _: TokenStream = content.parse()?;
                    forwarded.describes_only &= describes;
                } else if serde && key == "default" {
                    forwarded.default = true;
                } else {
                    forwarded.describes_only &= describes;
                }
                Ok(())
            });
            forwarded.describes_only &= parsed.is_ok();
        }
        forwarded
    }
}

/// `#[schemars(..)]` keys that schemars also reads from `#[serde(..)]`
/// (a field's name, default, or absence): a tool using one keeps the
/// `derived` way, where serde's derive reads the arguments beside them, as
/// it always did.
const SCHEMARS_READS: [&str; 5] = ["rename", "flatten", "default", "skip", "skip_deserializing"];

/// The `ParamVTable` const of a parameter, named at the user's type.
fn vtable(param: &Param) -> (syn::Ident, TokenStream) {
    let rt = rt();
    let ty = &param.ty;
    let vtable = format_ident!("__MCP_VTABLE_{}", param.name());
    let make_vtable = quote_spanned!(ty.span()=> <#ty as #rt::DeserializeAndJsonSchema>::VTABLE);
    let item = quote! {
        #[allow(non_upper_case_globals)]
        const #vtable: #rt::ParamVTable<#ty> = #make_vtable;
    };
    (vtable, item)
}

/// The bindings of every argument, each taken from the arguments object.
/// A missing argument with a bare `#[serde(default)]` is its newtype's
/// `Default` (so a type without `Default` is reported once, there).
fn take_each(arguments: &[&Param], vtables: &[syn::Ident], reads: &[Read]) -> TokenStream {
    let rt = rt();
    if arguments.is_empty() {
        return quote!(let _ = __mcp_arguments;);
    }
    let takes = arguments
        .iter()
        .zip(vtables)
        .zip(reads)
        .map(|((param, vtable), read)| {
            let binding = param.binding();
            let key = &read.key;
            let take = if read.default {
                let newtype = newtype_ident(param);
                quote! {
                    #vtable.take_or(&mut __mcp_arguments, #key, || {
                        <#newtype as ::core::default::Default>::default().0
                    })
                }
            } else {
                quote!(#vtable.take(&mut __mcp_arguments, #key))
            };
            quote! {
                let #binding = match #take {
                    ::core::result::Result::Ok(value) => value,
                    ::core::result::Result::Err(error) => return error,
                };
            }
        });
    quote! {
        let mut __mcp_arguments = #rt::arguments_object(__mcp_arguments);
        #(#takes)*
    }
}

/// Plain parameters: one `ParamVTable` const each, a static table of them
/// for the schema, and one `take` each. Everything generic is generic over
/// the parameter's type, shared by every tool, so each tool adds little to
/// compile.
fn table(arguments: &[&Param]) -> Arguments {
    let rt = rt();
    let mut items = Vec::new();
    let mut vtables = Vec::new();
    let mut entries = Vec::new();
    let mut reads = Vec::new();
    for param in arguments {
        let (vtable, item) = vtable(param);
        let name = param.name();
        let doc = param.description.as_deref().unwrap_or_default();
        let header = param
            .header
            .as_ref()
            .map(syn::LitStr::value)
            .unwrap_or_default();
        entries.push(quote!(#vtable.param(#name, #doc, #header)));
        items.push(item);
        vtables.push(vtable);
        reads.push(Read {
            key: name,
            default: false,
        });
    }
    let count = arguments.len();
    Arguments {
        items: quote! {
            #(#items)*
            static __MCP_PARAMS: [#rt::ToolParam; #count] = [#(#entries),*];
        },
        input_schema: quote!(#rt::params_schema(generator, &__MCP_PARAMS)),
        parse: take_each(arguments, &vtables, &reads),
    }
}

/// Parameters whose attributes only describe, rename or default them: a
/// struct of the parameters' newtypes deriving only `JsonSchema` (which
/// applies the attributes, serde's included) gives the schema, and each
/// argument is taken as in [`table`]; serde's derive, the larger half, is
/// not needed.
fn schema_derive(arguments: &[&Param], reads: &[Read], fn_ident: &syn::Ident) -> Arguments {
    let rt = rt();
    let mut items = Vec::new();
    let mut vtables = Vec::new();
    let mut fields = Vec::new();
    for (param, read) in arguments.iter().zip(reads) {
        let (vtable, item) = vtable(param);
        let (newtype, field_ty) = param_newtype(param, &vtable, read.default, false);
        items.push(item);
        items.push(newtype);
        let ident = &param.ident;
        let attrs = forwarded_with_header(param);
        let doc = param.description.as_ref().map(|d| quote!(#[doc = #d]));
        fields.push(quote!(#doc #(#attrs)* #ident: #field_ty));
        vtables.push(vtable);
    }
    let args_ident = args_ident(fn_ident);
    Arguments {
        items: quote! {
            #(#items)*

            #[allow(non_camel_case_types, dead_code)]
            #[derive(#rt::schemars::JsonSchema)]
            #[schemars(crate = "::mcp_runtime::__private::schemars")]
            struct #args_ident {
                #(#fields,)*
            }
        },
        input_schema: quote!(generator.root_schema_for::<#args_ident>()),
        parse: take_each(arguments, &vtables, reads),
    }
}

/// The parameter's forwarded attributes, and `#[header]` as the schema
/// extension it stands for.
fn forwarded_with_header(param: &Param) -> Vec<syn::Attribute> {
    let mut attrs = param.forwarded.clone();
    if let Some(header) = &param.header {
        attrs.push(syn::parse_quote!(#[schemars(extend("x-mcp-header" = #header))]));
    }
    attrs
}

fn args_ident(fn_ident: &syn::Ident) -> syn::Ident {
    format_ident!(
        "__McpArgs_{}",
        fn_ident.to_string().trim_start_matches("r#")
    )
}

/// Parameters with `#[serde]` attributes that change how they are read
/// (`flatten`, `with`, `alias`, ...): a struct of them with serde's and
/// schemars' derives, which apply the attributes. Each field's type is a
/// newtype delegating to the parameter's type through its `ParamVTable`,
/// so the derives never name the user's type and a type that cannot be a
/// parameter is still one error, at the type.
fn derived(arguments: &[&Param], fn_ident: &syn::Ident) -> Arguments {
    let rt = rt();
    let mut newtypes = Vec::new();
    let mut fields = Vec::new();
    let mut unwrap = Vec::new();
    for param in arguments {
        let ident = &param.ident;
        let binding = param.binding();
        let attrs = forwarded_with_header(param);
        let doc = param.description.as_ref().map(|d| quote!(#[doc = #d]));
        let forwarded = Forwarded::of(param);
        if forwarded.custom_deserializer {
            // The user's `with`/`deserialize_with`/`default` function
            // produces the parameter type itself, so the field cannot be
            // wrapped.
            let ty = &param.ty;
            fields.push(quote!(#doc #(#attrs)* #ident: #ty));
        } else {
            let (vtable, item) = vtable(param);
            let (newtype, field_ty) = param_newtype(param, &vtable, forwarded.default, true);
            newtypes.push(item);
            newtypes.push(newtype);
            fields.push(quote!(#doc #(#attrs)* #ident: #field_ty));
            unwrap.push(quote!(let #binding = #binding.0;));
        }
    }
    let destructure = arguments.iter().map(|p| {
        let ident = &p.ident;
        let binding = p.binding();
        quote!(#ident: #binding)
    });
    let args_ident = args_ident(fn_ident);
    Arguments {
        items: quote! {
            #(#newtypes)*

            #[allow(non_camel_case_types)]
            #[derive(#rt::serde::Deserialize, #rt::schemars::JsonSchema)]
            #[serde(crate = "::mcp_runtime::__private::serde")]
            #[schemars(crate = "::mcp_runtime::__private::schemars")]
            struct #args_ident {
                #(#fields,)*
            }
        },
        input_schema: quote!(generator.root_schema_for::<#args_ident>()),
        parse: quote! {
            let #args_ident { #(#destructure,)* } =
                match #rt::parse_arguments::<#args_ident>(__mcp_arguments) {
                    ::core::result::Result::Ok(value) => value,
                    ::core::result::Result::Err(error) => return error,
                };
            #(#unwrap)*
        },
    }
}

fn newtype_ident(param: &Param) -> syn::Ident {
    format_ident!("__McpParam_{}", param.name())
}

/// A newtype around one parameter type whose `JsonSchema` impl (and, for
/// the `derived` way, `Deserialize` impl) delegates to it through the
/// parameter's `ParamVTable` const, named `vtable`: the derives only see
/// the newtype, so a type lacking an impl is the one error at the type.
/// `Default` when a bare `#[serde(default)]` needs it, and `Serialize` so
/// schemars can show the default (when the type is `Serialize`).
fn param_newtype(
    param: &Param,
    vtable: &syn::Ident,
    needs_default: bool,
    deserialize: bool,
) -> (TokenStream, syn::Ident) {
    let rt = rt();
    let ty = &param.ty;
    let name = newtype_ident(param);
    let schema_name = name.to_string();
    let default_impl = needs_default.then(|| {
        quote! {
            impl ::core::default::Default for #name {
                fn default() -> Self {
                    #name(<#ty as ::core::default::Default>::default())
                }
            }

            impl #rt::serde::Serialize for #name {
                fn serialize<S: #rt::serde::Serializer>(
                    &self,
                    serializer: S,
                ) -> ::core::result::Result<S::Ok, S::Error> {
                    #[allow(unused_imports)]
                    use #rt::SerializeFallback as _;
                    match #rt::SerializeProbe(&self.0).__mcp_to_value() {
                        ::core::result::Result::Ok(value) => {
                            #rt::serde::Serialize::serialize(&value, serializer)
                        }
                        ::core::result::Result::Err(error) => {
                            ::core::result::Result::Err(<S::Error as #rt::serde::ser::Error>::custom(error))
                        }
                    }
                }
            }
        }
    });
    let deserialize_impl = deserialize.then(|| {
        quote! {
            impl<'de> #rt::serde::Deserialize<'de> for #name {
                fn deserialize<D: #rt::serde::Deserializer<'de>>(
                    deserializer: D,
                ) -> ::core::result::Result<Self, D::Error> {
                    ::core::result::Result::map(#vtable.deserialize(deserializer), #name)
                }
            }
        }
    });
    let tokens = quote! {
        #[allow(non_camel_case_types, dead_code)]
        struct #name(#ty);

        #deserialize_impl

        impl #rt::schemars::JsonSchema for #name {
            fn inline_schema() -> bool {
                true
            }
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(#schema_name)
            }
            fn json_schema(
                generator: &mut #rt::schemars::SchemaGenerator,
            ) -> #rt::schemars::Schema {
                #vtable.json_schema(generator)
            }
            fn _schemars_private_non_optional_json_schema(
                generator: &mut #rt::schemars::SchemaGenerator,
            ) -> #rt::schemars::Schema {
                #vtable.non_optional_json_schema(generator)
            }
            fn _schemars_private_is_option() -> bool {
                #vtable.is_option()
            }
        }

        #default_impl
    };
    (tokens, name)
}
