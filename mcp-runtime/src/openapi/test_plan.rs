//! Call plans written by hand for the call's tests (the conversion makes
//! the real ones from a document).

// The stub tests (`call_tests.rs`) that use the rest need `http`'s axum.
#![cfg_attr(not(feature = "http"), allow(dead_code))]

use std::sync::Arc;
use std::time::Duration;

use super::plan::{
    ArgumentPlan, BodyEncoding, BodyPlan, CallPlan, Credential, KeyLocation, Parameter,
    ParameterLocation, QueryStyle, Settings, Wire, http_client,
};

/// A [`CallPlan`] under construction; arguments keep their wire names.
pub(crate) struct PlanBuilder {
    plan: CallPlan,
}

impl PlanBuilder {
    pub(crate) fn new(method: reqwest::Method, base: &str, path: &str) -> PlanBuilder {
        let base = url::Url::parse(base).expect("a test base URL");
        PlanBuilder {
            plan: CallPlan {
                label: format!("{method} {path} (testOperation)"),
                method,
                base,
                path: path.to_owned(),
                arguments: Vec::new(),
                body: None,
                accept: None,
                credentials: Vec::new(),
                settings: Arc::new(Settings {
                    client: http_client().expect("an HTTP client"),
                    timeout: Duration::from_secs(10),
                    max_response_bytes: 8 << 20,
                }),
            },
        }
    }

    pub(crate) fn get(base: &str, path: &str) -> PlanBuilder {
        PlanBuilder::new(reqwest::Method::GET, base, path)
    }

    pub(crate) fn post(base: &str, path: &str) -> PlanBuilder {
        PlanBuilder::new(reqwest::Method::POST, base, path)
    }

    fn parameter(mut self, name: &str, location: ParameterLocation, explode: bool) -> Self {
        self.plan.arguments.push(ArgumentPlan {
            argument: name.to_owned(),
            wire: Wire::Parameter(Parameter {
                name: name.to_owned(),
                location,
                explode,
                allow_reserved: false,
                json: false,
            }),
        });
        self
    }

    fn last_parameter(&mut self) -> &mut Parameter {
        match self.plan.arguments.last_mut().map(|a| &mut a.wire) {
            Some(Wire::Parameter(parameter)) => parameter,
            _ => panic!("no parameter to change"),
        }
    }

    pub(crate) fn path(self, name: &str) -> Self {
        self.parameter(name, ParameterLocation::Path, false)
    }

    pub(crate) fn path_exploded(self, name: &str) -> Self {
        self.parameter(name, ParameterLocation::Path, true)
    }

    pub(crate) fn query(self, name: &str, style: QueryStyle, explode: bool) -> Self {
        self.parameter(name, ParameterLocation::Query(style), explode)
    }

    pub(crate) fn reserved_query(mut self, name: &str) -> Self {
        self = self.parameter(name, ParameterLocation::Query(QueryStyle::Form), true);
        self.last_parameter().allow_reserved = true;
        self
    }

    pub(crate) fn json_query(mut self, name: &str) -> Self {
        self = self.parameter(name, ParameterLocation::Query(QueryStyle::Form), true);
        self.last_parameter().json = true;
        self
    }

    pub(crate) fn header(self, name: &str) -> Self {
        self.parameter(name, ParameterLocation::Header, false)
    }

    pub(crate) fn cookie(self, name: &str) -> Self {
        self.parameter(name, ParameterLocation::Cookie, true)
    }

    /// The last parameter's argument is called `argument` (its wire name
    /// stays).
    pub(crate) fn argument_name(mut self, argument: &str) -> Self {
        let last = self.plan.arguments.last_mut().expect("an argument");
        last.argument = argument.to_owned();
        self
    }

    pub(crate) fn member(mut self, name: &str) -> Self {
        self.plan.arguments.push(ArgumentPlan {
            argument: name.to_owned(),
            wire: Wire::BodyMember {
                name: name.to_owned(),
            },
        });
        self
    }

    pub(crate) fn whole_body(mut self, argument: &str) -> Self {
        self.plan.arguments.push(ArgumentPlan {
            argument: argument.to_owned(),
            wire: Wire::Body,
        });
        self
    }

    pub(crate) fn json_body(mut self, required: bool) -> Self {
        self.plan.body = Some(BodyPlan {
            media_type: "application/json".to_owned(),
            encoding: BodyEncoding::Json,
            required,
        });
        self
    }

    pub(crate) fn form_body(mut self) -> Self {
        self.plan.body = Some(BodyPlan {
            media_type: "application/x-www-form-urlencoded".to_owned(),
            encoding: BodyEncoding::Form,
            required: true,
        });
        self
    }

    pub(crate) fn accept(mut self, media_type: &str) -> Self {
        self.plan.accept = Some(media_type.to_owned());
        self
    }

    pub(crate) fn bearer(mut self, token: &str) -> Self {
        self.plan.credentials.push(Credential::Bearer(token.into()));
        self
    }

    pub(crate) fn basic(mut self, user: &str, password: &str) -> Self {
        self.plan.credentials.push(Credential::Basic {
            user: user.into(),
            password: password.into(),
        });
        self
    }

    pub(crate) fn api_key(mut self, name: &str, location: KeyLocation, value: &str) -> Self {
        self.plan.credentials.push(Credential::ApiKey {
            name: name.to_owned(),
            location,
            value: value.into(),
        });
        self
    }

    pub(crate) fn timeout(mut self, timeout: Duration) -> Self {
        self.settings().timeout = timeout;
        self
    }

    pub(crate) fn max_response_bytes(mut self, bytes: usize) -> Self {
        self.settings().max_response_bytes = bytes;
        self
    }

    fn settings(&mut self) -> &mut Settings {
        Arc::get_mut(&mut self.plan.settings).expect("settings not shared yet")
    }

    pub(crate) fn build(self) -> CallPlan {
        self.plan
    }
}
