//! The weather example's forecast view in a real browser: Debian's
//! Chromium, driven by Playwright (tests/browser/run.mjs), renders it
//! through a host page built on @modelcontextprotocol/ext-apps' AppBridge
//! (tests/browser/host.ts, which knows nothing of the weather but the tool
//! to call) and a sandbox proxy on another origin that serves the view with
//! its Content-Security-Policy. The checks are what a person would see: the
//! chart's numbers are the tool's, a click in the view calls the tool back
//! through the host and the chart follows, a fetch the view's CSP does not
//! allow fails, no frame logs an error. The screenshot is left in
//! target/browser/weather-forecast.png, and must be the committed
//! examples/weather/forecast.png (the README's picture): compared in
//! Chromium, at most 0.1% of the pixels may differ (run.mjs says which, and
//! leaves a picture of them next to the screenshot, `.diff.png`).
//!
//! After a change to the view, refresh the committed picture with
//! `UPDATE_SCREENSHOT=1 cargo test -p mcp-tests --test browser`: the fresh
//! screenshot is then copied over examples/weather/forecast.png instead of
//! compared with it; look at it, and commit it.
//!
//! Chromium, the DejaVu fonts (the only ones the test lets it use, so that
//! the rendering is the same everywhere) and the npm packages are installed
//! by tests/browser/install on first use (tests/common/browser.rs).

mod common;

use std::process::Command;

use serde_json::Value;

use common::running::Running;

/// The width and height of a PNG file, from its IHDR chunk.
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    let signature = b"\x89PNG\r\n\x1a\n";
    if bytes.len() < 24 || &bytes[..8] != signature || &bytes[12..16] != b"IHDR" {
        return None;
    }
    let number = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    Some((number(16), number(20)))
}

fn days(value: &Value) -> Vec<(f64, f64)> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("no days in {value}"))
        .iter()
        .map(|day| (day["high"].as_f64().unwrap(), day["low"].as_f64().unwrap()))
        .collect()
}

#[test]
fn weather_view_renders_calls_back_and_keeps_to_its_csp_in_chromium() {
    common::browser::INSTALL.ensure();
    let weather = Running::start(
        "weather example",
        Command::new(common::weather_binary()).args(["--http", "127.0.0.1:0"]),
    );
    let url = weather.serving();
    let shot = common::browser::screenshot_path("weather-forecast.png");
    let _ = std::fs::remove_file(&shot);

    let common::browser::Verdict { verdict, stderr } = common::browser::run(&url, &shot);
    assert!(
        verdict["ok"] == true,
        "the browser test failed at {}: {}\nits verdict: {verdict:#}\nits stderr:\n{stderr}\nthe \
         server's log:\n{}",
        verdict["step"],
        verdict["error"].as_str().unwrap_or("(no sentence)"),
        weather.log()
    );

    // The chart showed the host's call (Paris, 5 days), then the city
    // clicked, with numbers of its own, then fewer days of that city.
    let first = &verdict["forecast"];
    assert_eq!(first["city"], "Paris", "{verdict:#}");
    assert_eq!(days(&first["days"]).len(), 5, "{verdict:#}");
    let click = &verdict["click"];
    assert_ne!(click["city"], "Paris", "{verdict:#}");
    assert_ne!(days(&click["days"]), days(&first["days"]), "{verdict:#}");
    let fewer = &verdict["clickDays"];
    assert_eq!(fewer["city"], click["city"], "{verdict:#}");
    let (clicked, shortened) = (days(&click["days"]), days(&fewer["days"]));
    assert!(
        shortened.len() < clicked.len() && clicked.starts_with(&shortened),
        "{verdict:#}"
    );

    // The view declares no connectDomains: the spec's default policy, which
    // let nothing reach the probe.
    let csp = &verdict["csp"];
    let policy = csp["policy"].as_str().unwrap_or_default();
    assert!(policy.contains("connect-src 'none'"), "{verdict:#}");
    assert!(policy.starts_with("default-src 'none'"), "{verdict:#}");
    assert_eq!(csp["probeHits"], 0, "{verdict:#}");
    assert!(
        csp["violations"]
            .as_array()
            .is_some_and(|seen| seen.iter().any(|v| v["directive"] == "connect-src")),
        "{verdict:#}"
    );
    assert_eq!(
        verdict["consoleErrors"],
        Value::Array(vec![]),
        "{verdict:#}"
    );

    // The screenshot: a PNG of the view, at its CSS size (640 px wide), and
    // the committed picture's (or, with UPDATE_SCREENSHOT=1, copied there).
    let bytes =
        std::fs::read(&shot).unwrap_or_else(|e| panic!("no screenshot at {}: {e}", shot.display()));
    let (width, height) =
        png_size(&bytes).unwrap_or_else(|| panic!("{} is not a PNG", shot.display()));
    assert!(
        width >= 600 && height >= 300,
        "the screenshot {} is {width}x{height}: too small to show the chart",
        shot.display()
    );
    let compare = &verdict["compare"];
    if std::env::var_os("UPDATE_SCREENSHOT").is_some_and(|value| value == "1") {
        assert!(compare["updated"].is_string(), "{verdict:#}");
    } else {
        assert!(
            compare["share"]
                .as_f64()
                .is_some_and(|share| share <= 0.001),
            "{verdict:#}"
        );
    }
}
