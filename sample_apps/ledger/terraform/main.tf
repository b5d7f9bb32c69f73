resource "google_storage_bucket" "input" {
  name                        = "${var.bucket_prefix}-${var.project_id}"
  location                    = var.region
  uniform_bucket_level_access = true

  lifecycle_rule {
    condition {
      age = var.report_retention_days
    }
    action {
      type = "Delete"
    }
  }
}

resource "google_bigquery_dataset" "reports" {
  dataset_id = var.dataset
  location   = var.region
}

resource "google_bigquery_table" "segment_reports" {
  dataset_id          = google_bigquery_dataset.reports.dataset_id
  table_id            = "segment_reports"
  deletion_protection = true

  schema = jsonencode([
    { name = "run_id", type = "INTEGER", mode = "REQUIRED" },
    { name = "segment", type = "STRING", mode = "REQUIRED" },
    { name = "sales", type = "NUMERIC", mode = "REQUIRED" },
    { name = "refunds", type = "NUMERIC", mode = "REQUIRED" },
    { name = "net", type = "NUMERIC", mode = "REQUIRED" },
    { name = "refund_rate", type = "NUMERIC", mode = "NULLABLE" },
    { name = "growth", type = "NUMERIC", mode = "NULLABLE" },
  ])
}

resource "google_service_account" "ledger" {
  account_id   = "ledger-pipeline"
  display_name = "Ledger batch pipeline"
}
