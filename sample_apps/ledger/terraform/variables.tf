variable "project_id" {
  description = "GCP project that hosts the ledger pipeline"
  type        = string
}

variable "region" {
  description = "Region for the bucket and the dataset"
  type        = string
}

variable "dataset" {
  description = "BigQuery dataset the reports are loaded into"
  type        = string
}

variable "bucket_prefix" {
  description = "Prefix of the input bucket name"
  type        = string
  default     = "ledger-input"
}

variable "report_retention_days" {
  description = "Days before input objects are deleted"
  type        = number
  default     = 90
}
