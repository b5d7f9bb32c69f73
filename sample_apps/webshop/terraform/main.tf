resource "aws_s3_bucket" "invoices" {
  bucket = var.bucket_name
}

resource "aws_s3_bucket_public_access_block" "invoices" {
  bucket = aws_s3_bucket.invoices.id

  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_server_side_encryption_configuration" "invoices" {
  bucket = aws_s3_bucket.invoices.id

  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm = "AES256"
    }
  }
}

resource "aws_sqs_queue" "billing_events" {
  name                      = "${var.queue_name}-${var.environment}"
  message_retention_seconds = 345600
  sqs_managed_sse_enabled   = true
}

resource "aws_cloudwatch_log_group" "services" {
  name              = "/webshop/${var.environment}"
  retention_in_days = var.log_retention_days
}
