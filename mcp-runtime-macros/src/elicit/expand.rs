//! The code `#[derive(Elicit)]` generates: `Elicit` for a form (its schema
//! built once, and the reading of an answer into the struct), or
//! `ElicitEnum` and `ElicitField` for an enum to pick from.
//!
//! Each field's type is named as `<Type as ElicitField>` under the user's
//! type, so a type a form cannot hold is reported there; each keyword that
//! needs a kind of type names a marker trait under the keyword.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::parse::{Choices, Constraint, Field, Form};

const ELICIT: &str = "::mcp_runtime::__private::elicit";

fn path() -> TokenStream {
    ELICIT.parse().expect("a path")
}

pub fn form(form: &Form) -> TokenStream {
    let elicit = path();
    let ident = &form.ident;
    let json = quote!(::mcp_runtime::__private::serde_json);
    let builds = form.fields.iter().map(|f| build_field(f, &elicit));
    let reads = form.fields.iter().map(|f| read_field(f, &elicit));
    quote! {
        #[automatically_derived]
        impl ::mcp_runtime::Elicit for #ident {
            fn form() -> &'static ::core::result::Result<#elicit::Form, ::std::string::String> {
                static FORM: ::std::sync::OnceLock<
                    ::core::result::Result<#elicit::Form, ::std::string::String>,
                > = ::std::sync::OnceLock::new();
                FORM.get_or_init(|| {
                    let mut form = #elicit::Form::builder();
                    #(#builds)*
                    form.finish()
                })
            }

            fn from_answer(
                mut content: #json::Map<::std::string::String, #json::Value>,
            ) -> ::core::result::Result<Self, ::std::string::String> {
                ::core::result::Result::Ok(#ident { #(#reads,)* })
            }
        }
    }
}

fn build_field(f: &Field, elicit: &TokenStream) -> TokenStream {
    let ty = &f.ty;
    let name = &f.name;
    let as_field = quote_spanned!(ty.span()=> <#ty as #elicit::ElicitField>);
    let has_default = f.default.is_some();
    let mut sets = Vec::new();
    if let Some(title) = &f.title {
        sets.push(quote!(field.set("title", #title);));
    }
    if !f.description.is_empty() {
        let description = &f.description;
        sets.push(quote!(field.set("description", #description);));
    }
    for (keyword, value, span) in &f.text {
        let value = match value {
            Constraint::Count(n) => quote!(#n as u64),
            Constraint::Text(s) => quote!(#s),
        };
        sets.push(quote_spanned!(*span=> let () = <#ty as #elicit::Text>::OK;));
        sets.push(quote!(field.set(#keyword, #value);));
    }
    for (keyword, value, span) in &f.number {
        sets.push(quote_spanned!(*span=> let () = <#ty as #elicit::Number>::OK;));
        sets.push(
            quote!(field.set(#keyword, ::mcp_runtime::__private::serde_json::Value::from(#value));),
        );
    }
    for (keyword, value, span) in &f.choices {
        sets.push(quote_spanned!(*span=> let () = <#ty as #elicit::Choices>::OK;));
        sets.push(quote!(field.set(#keyword, #value as u64);));
    }
    if let Some(default) = &f.default {
        let value = quote_spanned!(default.span()=> ::core::convert::Into::<#ty>::into(#default));
        sets.push(quote!(field.default(#as_field::to_json(&#value));));
    }
    quote! {
        {
            let mut field = form.field(#name, #as_field::schema(), #as_field::REQUIRED && !#has_default);
            #(#sets)*
            let _ = &mut field;
        }
    }
}

fn read_field(f: &Field, elicit: &TokenStream) -> TokenStream {
    let ident = &f.ident;
    let ty = &f.ty;
    let name = &f.name;
    let as_field = quote!(<#ty as #elicit::ElicitField>);
    quote! {
        #ident: match content.remove(#name) {
            ::core::option::Option::Some(value) => #as_field::from_json(value)
                .map_err(|e| ::std::format!("`/{}`: {}", #name, e))?,
            ::core::option::Option::None => #as_field::absent()
                .ok_or_else(|| ::std::format!("`/{}`: missing", #name))?,
        }
    }
}

pub fn choices(choices: &Choices) -> TokenStream {
    let elicit = path();
    let json = quote!(::mcp_runtime::__private::serde_json);
    let ident = &choices.ident;
    let entries = choices.variants.iter().map(|v| {
        let value = &v.value;
        let title = match &v.title {
            Some(t) => quote!(::core::option::Option::Some(#t)),
            None => quote!(::core::option::Option::None),
        };
        quote!(#elicit::Choice { value: #value, title: #title })
    });
    let from = choices.variants.iter().enumerate().map(|(i, v)| {
        let variant = &v.ident;
        quote!(#i => #ident::#variant)
    });
    let to = choices.variants.iter().enumerate().map(|(i, v)| {
        let variant = &v.ident;
        quote!(#ident::#variant => #i)
    });
    let last = choices.variants.last().map(|v| &v.ident);
    let enum_names = choices.enum_names;
    quote! {
        #[automatically_derived]
        impl #elicit::ElicitEnum for #ident {
            const CHOICES: &'static [#elicit::Choice] = &[#(#entries),*];
            const ENUM_NAMES: bool = #enum_names;

            fn from_choice(index: usize) -> Self {
                match index {
                    #(#from,)*
                    _ => #ident::#last,
                }
            }

            fn choice(&self) -> usize {
                match self {
                    #(#to,)*
                }
            }
        }

        #[automatically_derived]
        impl #elicit::ElicitField for #ident {
            fn schema() -> #json::Map<::std::string::String, #json::Value> {
                #elicit::one_of::<Self>()
            }

            fn to_json(&self) -> ::core::option::Option<#json::Value> {
                ::core::option::Option::Some(#elicit::choice_json(self))
            }

            fn from_json(value: #json::Value) -> ::core::result::Result<Self, ::std::string::String> {
                #elicit::choose(&value)
            }
        }
    }
}
