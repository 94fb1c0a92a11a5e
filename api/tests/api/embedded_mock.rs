//! An empty `rates.base_url`: with the `embedded-mock` feature the service starts a mock-rates
//! of its own and converts through it; without it, start-up fails and says what to set.

use api::configuration::Settings;
use api::startup::Application;

fn settings_without_upstream() -> Settings {
    let mut settings = Settings::defaults().expect("defaults load");
    settings.server.port = 0;
    settings.server.workers = 1;
    settings.rates.base_url = String::new();
    settings
}

#[cfg(feature = "embedded-mock")]
#[actix_web::test]
async fn an_empty_rates_url_starts_the_embedded_mock() {
    let application = Application::build(&settings_without_upstream()).expect("service builds");
    let address = format!("http://127.0.0.1:{}", application.port());
    actix_web::rt::spawn(application.run_until_stopped());
    let response = reqwest::Client::new()
        .post(format!("{address}/payments/hyper"))
        .header("content-type", "application/json")
        .body(r#"{"amount":"10","currency":"EUR","target_currency":"USD"}"#)
        .send()
        .await
        .expect("request sent");
    assert_eq!(response.status(), 200);
}

#[cfg(not(feature = "embedded-mock"))]
#[actix_web::test]
async fn an_empty_rates_url_fails_at_start_naming_the_feature_and_the_setting() {
    let error = Application::build(&settings_without_upstream()).unwrap_err();
    let message = error.to_string();
    assert!(message.contains("embedded-mock"), "{message}");
    assert!(message.contains("rates.base_url"), "{message}");
}
