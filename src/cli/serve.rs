//! `pendula serve`: the live viewer (see `pendula::serve`).

use super::output::CliError;
use clap::Args;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// TCP port on 127.0.0.1 (0: any free port; the URL is printed on stdout).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Most simultaneous connections (page loads and live views).
    #[arg(long, default_value_t = 8)]
    pub max_clients: usize,
}

pub fn serve_command(a: &ServeArgs) -> Result<(), CliError> {
    if a.max_clients == 0 || a.max_clients > 64 {
        return Err(CliError::Input(format!(
            "--max-clients: must be between 1 and 64 (got {})",
            a.max_clients
        )));
    }
    let server = pendula::serve::Server::bind(a.port, a.max_clients).map_err(|e| {
        CliError::Run(format!(
            "--port: cannot listen on 127.0.0.1:{}: {e}",
            a.port
        ))
    })?;
    println!("pendula viewer at http://{}/", server.local_addr());
    eprintln!("serving on 127.0.0.1 only; Ctrl-C stops");
    server.run();
    Ok(())
}
