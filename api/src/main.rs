use std::process::ExitCode;

use api::configuration::Settings;
use api::startup::Application;

const USAGE: &str = "usage: api            run the payment service (configured by config/default.toml and APP__* variables)
       api --probe URL  GET URL once; exit 0 on HTTP 200, 1 otherwise (container health checks)
       api --openapi    print the OpenAPI document of the service these settings start, and exit";

#[actix_web::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [] => serve().await,
        ["--probe", url] => health_probe::run("api", url),
        ["--openapi"] => match Settings::load() {
            Ok(settings) => {
                println!("{}", api::openapi::for_settings(&settings));
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("api: invalid configuration: {error}");
                ExitCode::from(2)
            }
        },
        ["--help" | "-h"] => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

async fn serve() -> ExitCode {
    let settings = match Settings::load() {
        Ok(settings) => settings,
        Err(error) => {
            eprintln!("api: invalid configuration: {error}");
            return ExitCode::from(2);
        }
    };
    api::telemetry::init(settings.log.format);
    let application = match Application::build(&settings) {
        Ok(application) => application,
        Err(error) => {
            tracing::error!(%error, "api: cannot start");
            return ExitCode::FAILURE;
        }
    };
    match application.run_until_stopped().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!(%error, "api: server failed");
            ExitCode::FAILURE
        }
    }
}
