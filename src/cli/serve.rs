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
    let addr = server.local_addr();
    println!("pendula viewer at http://{addr}/");
    // The origin checks refuse any other name or port (an SSH tunnel must keep the port).
    eprintln!(
        "serving on 127.0.0.1 only, to http://127.0.0.1:{p} and http://localhost:{p}; Ctrl-C stops",
        p = addr.port()
    );
    server.run();
    Ok(())
}
