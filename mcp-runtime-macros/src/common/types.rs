//! Checks on the shape of a parameter's or return type's syntax: `impl
//! Trait` and borrows, which no attribute accepts, and the types the
//! runtime injects.

use quote::ToTokens;
use syn::Type;

/// `Context` and `State<T>` (by their last path segment) are injected.
pub fn is_injected(ty: &Type) -> bool {
    let Type::Path(path) = ty else { return false };
    if path.qself.is_some() {
        return false;
    }
    let Some(last) = path.path.segments.last() else {
        return false;
    };
    match &last.arguments {
        syn::PathArguments::None => last.ident == "Context",
        syn::PathArguments::AngleBracketed(_) => last.ident == "State",
        syn::PathArguments::Parenthesized(_) => false,
    }
}

/// What to write instead of a borrowed type.
pub fn borrowed_hint(reference: &syn::TypeReference) -> String {
    match &*reference.elem {
        Type::Path(p) if p.path.is_ident("str") => "use `String` instead of `&str`".into(),
        Type::Slice(s) => format!("use `Vec<{}>` instead", s.elem.to_token_stream()),
        other => format!("use `{}` instead", other.to_token_stream()),
    }
}

/// Finds the first `impl Trait` anywhere inside a type.
pub fn find_impl_trait(ty: &Type) -> Option<&syn::TypeImplTrait> {
    let mut found = None;
    visit_types(ty, &mut |t| {
        if let Type::ImplTrait(it) = t {
            found.get_or_insert(it);
        }
    });
    found
}

/// Finds the first reference anywhere inside a type.
pub fn find_reference(ty: &Type) -> Option<&syn::TypeReference> {
    let mut found = None;
    visit_types(ty, &mut |t| {
        if let Type::Reference(r) = t {
            found.get_or_insert(r);
        }
    });
    found
}

fn visit_types<'a>(ty: &'a Type, f: &mut impl FnMut(&'a Type)) {
    f(ty);
    match ty {
        Type::Array(a) => visit_types(&a.elem, f),
        Type::Group(g) => visit_types(&g.elem, f),
        Type::Paren(p) => visit_types(&p.elem, f),
        Type::Ptr(p) => visit_types(&p.elem, f),
        Type::Reference(r) => visit_types(&r.elem, f),
        Type::Slice(s) => visit_types(&s.elem, f),
        Type::Tuple(t) => t.elems.iter().for_each(|e| visit_types(e, f)),
        Type::Path(p) => {
            if let Some(q) = &p.qself {
                visit_types(&q.ty, f);
            }
            for segment in &p.path.segments {
                if let syn::PathArguments::AngleBracketed(args) = &segment.arguments {
                    for arg in &args.args {
                        if let syn::GenericArgument::Type(t) = arg {
                            visit_types(t, f);
                        }
                    }
                }
            }
        }
        _ => {}
    }
}
