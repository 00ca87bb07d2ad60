//! The upstream both fronts mount: `--upstream NAME [ARG..]`, a bench
//! server's binary, found next to the front's own binary when NAME has no
//! slash (so `target/release/ours-chain --upstream ours-basic` spawns
//! `target/release/ours-basic`).

use std::path::PathBuf;

use mcp_runtime::Upstream;

/// The upstream named by `name`, spawned with `args`.
pub fn upstream(name: &str, args: &[String]) -> std::io::Result<Upstream> {
    let program = if name.contains('/') {
        PathBuf::from(name)
    } else {
        let exe = std::env::current_exe()?;
        let dir = exe
            .parent()
            .ok_or_else(|| std::io::Error::other("the front's binary has no directory"))?;
        dir.join(name)
    };
    if !program.is_file() {
        return Err(std::io::Error::other(format!(
            "the upstream {} is not built",
            program.display()
        )));
    }
    Ok(Upstream::command(program, args))
}
