project_id = "acme-ledger-prod"
region     = "europe-west1"
dataset    = "ledger_reports"
