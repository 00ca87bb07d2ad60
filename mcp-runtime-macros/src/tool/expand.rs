//! Code generation for `#[tool]`.
//!
//! The user's function is emitted as written (minus parameter attributes that
//! only `#[tool]` understands). Next to it, inside `const _: () = { ... };`:
//! a table of the parameters (or, when they carry `#[serde]`/`#[schemars]`
//! attributes, a hidden arguments struct with serde's and schemars'
//! derives), a call shim, the schema functions and one `inventory::submit!`.
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
    // Parameters without forwarded attributes are described by a table
    // the runtime builds the schema from and read one by one; attributes
    // that change how one is read or described need serde's and schemars'
    // derives on a struct of them.
    let Arguments {
        items,
        input_schema,
        parse,
    } = if arguments.iter().all(|p| p.forwarded.is_empty()) {
        table_arguments(&arguments)
    } else {
        derived_arguments(&arguments, fn_ident)
    };
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
                #use_kinds
                #kind_probe.output_schema(generator)
            }

            fn __mcp_call(
                __mcp_arguments: #rt::serde_json::Value,
                __mcp_ctx: #rt::Context,
            ) -> #rt::BoxFuture<#rt::RawOutput> {
                ::std::boxed::Box::pin(async move {
                    #use_kinds
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

/// How the expansion describes and reads a tool's arguments: the items it
/// needs, the body of `__mcp_input_schema`, and the statements that bind
/// each argument from `__mcp_arguments`.
struct Arguments {
    items: TokenStream,
    input_schema: TokenStream,
    parse: TokenStream,
}

/// Plain parameters: one `ParamVTable` const per parameter (named at the
/// user's type, so a type that cannot be a parameter is one error there),
/// a static table of them for the schema, and one `take` per parameter.
/// Everything generic is generic over the parameter's type, shared by every
/// tool, so each tool adds little to compile.
fn table_arguments(arguments: &[&Param]) -> Arguments {
    let rt = rt();
    let mut items = Vec::new();
    let mut entries = Vec::new();
    let mut parse = Vec::new();
    for param in arguments {
        let ty = &param.ty;
        let name = param.name();
        let vtable = format_ident!("__MCP_VTABLE_{}", name);
        let make_vtable =
            quote_spanned!(ty.span()=> <#ty as #rt::DeserializeAndJsonSchema>::VTABLE);
        items.push(quote! {
            #[allow(non_upper_case_globals)]
            const #vtable: #rt::ParamVTable<#ty> = #make_vtable;
        });
        let doc = param.description.as_deref().unwrap_or_default();
        let header = param
            .header
            .as_ref()
            .map(syn::LitStr::value)
            .unwrap_or_default();
        entries.push(quote!(#vtable.param(#name, #doc, #header)));
        let binding = param.binding();
        parse.push(quote! {
            let #binding = match #vtable.take(&mut __mcp_arguments, #name) {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(error) => return error,
            };
        });
    }
    let count = arguments.len();
    let parse = if arguments.is_empty() {
        quote!(let _ = __mcp_arguments;)
    } else {
        quote! {
            let mut __mcp_arguments = #rt::arguments_object(__mcp_arguments);
            #(#parse)*
        }
    };
    Arguments {
        items: quote! {
            #(#items)*
            static __MCP_PARAMS: [#rt::ToolParam; #count] = [#(#entries),*];
        },
        input_schema: quote!(#rt::params_schema(generator, &__MCP_PARAMS)),
        parse,
    }
}

/// Parameters with forwarded `#[serde]`/`#[schemars]` attributes: a
/// struct of them with serde's and schemars' derives, which apply the
/// attributes. Each field's type is a newtype delegating to the
/// parameter's type through its `ParamVTable`, so the derives never name
/// the user's type and a type that cannot be a parameter is still one
/// error, at the type.
fn derived_arguments(arguments: &[&Param], fn_ident: &syn::Ident) -> Arguments {
    let rt = rt();
    let mut newtypes = Vec::new();
    let mut fields = Vec::new();
    let mut unwrap = Vec::new();
    for param in arguments {
        let ident = &param.ident;
        let binding = param.binding();
        let mut attrs = param.forwarded.clone();
        if let Some(header) = &param.header {
            attrs.push(syn::parse_quote!(#[schemars(extend("x-mcp-header" = #header))]));
        }
        let doc = param.description.as_ref().map(|d| quote!(#[doc = #d]));
        let serde = serde_field_options(param);
        if serde.custom_deserializer {
            // The user's `with`/`deserialize_with`/`default` function
            // produces the parameter type itself, so the field cannot be
            // wrapped.
            let ty = &param.ty;
            fields.push(quote!(#doc #(#attrs)* #ident: #ty));
        } else {
            let (newtype, field_ty) = param_newtype(param, serde.default);
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
    let args_ident = format_ident!(
        "__McpArgs_{}",
        fn_ident.to_string().trim_start_matches("r#")
    );
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

#[derive(Default)]
struct SerdeFieldOptions {
    /// A bare `#[serde(default)]`: the field type needs `Default`.
    default: bool,
    /// `#[serde(with = ...)]`, `#[serde(deserialize_with = ...)]` or
    /// `#[serde(default = ...)]`: user functions that produce the parameter
    /// type itself.
    custom_deserializer: bool,
}

fn serde_field_options(param: &Param) -> SerdeFieldOptions {
    let mut options = SerdeFieldOptions::default();
    for attr in param
        .forwarded
        .iter()
        .filter(|a| a.path().is_ident("serde"))
    {
        // Errors here are serde's to report, with its own messages.
        let _ = attr.parse_nested_meta(|meta| {
            if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
                if meta.path.is_ident("with")
                    || meta.path.is_ident("deserialize_with")
                    || meta.path.is_ident("default")
                {
                    options.custom_deserializer = true;
                }
            } else if meta.input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in meta.input);
                let _: TokenStream = content.parse()?;
            } else if meta.path.is_ident("default") {
                options.default = true;
            }
            Ok(())
        });
    }
    options
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

/// A newtype around one parameter type whose `Deserialize` and `JsonSchema`
/// impls delegate to it through a vtable read once from the
/// `DeserializeAndJsonSchema` trait, spanned at the user's type: a type
/// lacking either impl is one error, there.
fn param_newtype(param: &Param, needs_default: bool) -> (TokenStream, TokenStream) {
    let rt = rt();
    let ty = &param.ty;
    let bare = param.ident.to_string().trim_start_matches("r#").to_owned();
    let name = format_ident!("__McpParam_{}", bare);
    let vtable = format_ident!("__MCP_VTABLE_{}", bare);
    let schema_name = name.to_string();
    let make_vtable = quote_spanned!(ty.span()=> <#ty as #rt::DeserializeAndJsonSchema>::VTABLE);
    let default_impl = if needs_default {
        quote! {
            impl ::core::default::Default for #name {
                fn default() -> Self {
                    #name(<#ty as ::core::default::Default>::default())
                }
            }
        }
    } else {
        quote!()
    };
    let tokens = quote! {
        #[allow(non_upper_case_globals)]
        const #vtable: #rt::ParamVTable<#ty> = #make_vtable;

        #[allow(non_camel_case_types)]
        struct #name(#ty);

        impl<'de> #rt::serde::Deserialize<'de> for #name {
            fn deserialize<D: #rt::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                ::core::result::Result::map(#vtable.deserialize(deserializer), #name)
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
    (tokens, quote!(#name))
}
