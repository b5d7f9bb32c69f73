resource "google_project_iam_custom_role" "ledger_pipeline" {
  role_id     = "ledgerPipeline"
  title       = "Ledger pipeline"
  description = "What the ledger jobs and reports services call at run time"
  permissions = [
    "bigquery.tables.updateData",
    "storage.objects.get",
    "storage.objects.create",
    "logging.logEntries.create",
  ]
}

resource "google_project_iam_member" "ledger_pipeline" {
  project = var.project_id
  role    = google_project_iam_custom_role.ledger_pipeline.name
  member  = "serviceAccount:${google_service_account.ledger.email}"
}
