region      = "eu-west-1"
environment = "staging"
bucket_name = "webshop-staging-invoices"
