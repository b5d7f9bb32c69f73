output "invoice_bucket" {
  value = aws_s3_bucket.invoices.bucket
}

output "billing_queue_url" {
  value = aws_sqs_queue.billing_events.url
}

output "services_policy_arn" {
  value = aws_iam_policy.services.arn
}
