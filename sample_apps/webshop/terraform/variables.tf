variable "region" {
  description = "AWS region to deploy into"
  type        = string
}

variable "environment" {
  description = "Deployment environment name, e.g. staging or production"
  type        = string
}

variable "bucket_name" {
  description = "Name of the S3 bucket that stores invoice PDFs"
  type        = string
}

variable "queue_name" {
  description = "Name of the SQS queue for billing events"
  type        = string
  default     = "webshop-billing-events"
}

variable "log_retention_days" {
  description = "How long service logs are kept"
  type        = number
  default     = 14
}
