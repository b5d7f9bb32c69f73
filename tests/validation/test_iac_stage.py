"""The iac stage against a tiny Terraform module: clean passes, each check catches its fault."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemas.manifest import AppManifest
from validation.caches import Caches
from validation.stages.base import StageContext
from validation.stages.iac import iac

PROVIDERS = """\
terraform {
  required_version = ">= 1.5"
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
    google = {
      source = "registry.terraform.io/hashicorp/google"
    }
  }
}

provider "aws" {
  region = var.region
}
"""

VARIABLES = """\
variable "region" {
  type        = string
  description = "AWS region"
}

variable "bucket_name" {
  type = string
}

variable "tags" {
  type    = map(string)
  default = {}
}
"""

TFVARS = 'region      = "eu-west-1"\nbucket_name = "demo-bucket"\n'

IAM = """\
resource "aws_iam_policy" "app" {
  name = "app"
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      {
        Effect   = "Allow"
        Action   = ["s3:GetObject", "s3:PutObject"]
        Resource = "arn:aws:s3:::${var.bucket_name}/*"
      },
      {
        Effect   = "Deny"
        Action   = "s3:DeleteBucket"
        Resource = "*"
      }
    ]
  })
}

resource "aws_iam_policy" "queue" {
  name   = "queue"
  policy = <<POLICY
{
  "Version": "2012-10-17",
  "Statement": [{"Effect": "Allow", "Action": ["dynamodb:*"], "Resource": "*"}]
}
POLICY
}

resource "aws_iam_policy" "logs" {
  name   = "logs"
  policy = <<-EOT
    {
      "Statement": {"Effect": "Allow", "Action": "logs:PutLogEvents", "Resource": "*"}
    }
  EOT
}

data "aws_iam_policy_document" "deploy" {
  statement {
    actions   = ["kms:Decrypt", "ec2:Describe*"]
    resources = ["*"]
  }
  statement {
    effect    = "Deny"
    actions   = ["iam:PassRole"]
    resources = ["*"]
  }
}

resource "aws_iam_role" "deploy" {
  name = "deploy"
  assume_role_policy = jsonencode({
    Statement = [{
      Effect = "Allow", Action = "sts:AssumeRole", Principal = { Service = "ecs.amazonaws.com" }
    }]
  })
}

resource "google_project_iam_custom_role" "deployer" {
  role_id     = "deployer"
  title       = "Deployer"
  permissions = ["storage.objects.get", "pubsub.topics.publish"]
}
"""

# One action granted by each spelling the stage understands, wildcards included.
REQUIRED = [
    "s3:GetObject",
    "dynamodb:PutItem",
    "logs:PutLogEvents",
    "kms:Decrypt",
    "ec2:DescribeInstances",
    "storage.objects.get",
]

FILES = {
    "infra/providers.tf": PROVIDERS,
    "infra/variables.tf": VARIABLES,
    "infra/terraform.tfvars": TFVARS,
    "infra/iam.tf": IAM,
}


def make_ctx(tmp_path: Path, files: dict[str, str] | None = None, required: list[str] | None = None) -> StageContext:
    workspace = tmp_path / "ws"
    for rel, text in (FILES if files is None else files).items():
        (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / rel).write_text(text)
    terraform = {
        "dir": "infra",
        "provider_file": "infra/providers.tf",
        "variables_file": "infra/variables.tf",
        "tfvars_file": "infra/terraform.tfvars",
        "iam_file": "infra/iam.tf",
        "required_actions": REQUIRED if required is None else required,
    }
    manifest = AppManifest.model_validate(
        {
            "name": "demo",
            "summary": "iac fixture",
            "shape": "api",
            "services": {
                "api": {
                    "dir": "api",
                    "requirements": "api/requirements.txt",
                    "dockerfile": "api/Dockerfile",
                    "command": ["python", "app.py"],
                    "port_env": "API_PORT",
                }
            },
            "compose": {"file": "compose.yaml"},
            "database": {"migrations": "db", "file": "/data/a.db", "url_env": "DATABASE_URL", "tables": []},
            "secret": {"env": "APP_SECRET"},
            "logging": {"config": "logging.json", "module": "api/log.py"},
            "terraform": terraform,
            "ci_workflow": ".github/workflows/ci.yml",
            "smoke": {"service": "api", "path": "/healthz"},
        }
    )
    return StageContext(workspace, manifest, Caches(tmp_path / "cache"), tmp_path / "run", timeout_s=60)


def changed(path: str, old: str, new: str) -> dict[str, str]:
    assert old in FILES[path]
    return FILES | {path: FILES[path].replace(old, new)}


def test_clean_module_passes(tmp_path: Path) -> None:
    outcome = iac(make_ctx(tmp_path))
    assert outcome.ok, outcome.output
    assert outcome.error_lines == [] and outcome.exit_code == 0
    assert outcome.output.endswith("Success! The configuration is valid.")


def test_every_policy_spelling_is_read(tmp_path: Path) -> None:
    output = iac(make_ctx(tmp_path)).output
    [grants] = [line for line in output.splitlines() if line.startswith("iam: ")]
    for action in [
        "s3:PutObject",
        "dynamodb:*",
        "logs:PutLogEvents",
        "ec2:Describe*",
        "pubsub.topics.publish",
    ]:
        assert f"'{action}'" in grants
    # Deny statements grant nothing; neither does a role's trust policy.
    for denied in ["s3:DeleteBucket", "iam:PassRole", "sts:AssumeRole"]:
        assert denied not in grants


def test_missing_required_variable_is_named(tmp_path: Path) -> None:
    outcome = iac(make_ctx(tmp_path, changed("infra/terraform.tfvars", 'bucket_name = "demo-bucket"\n', "")))
    assert not outcome.ok
    assert outcome.error_lines == [
        "Error: No value for required variable (on infra/variables.tf line 6): The root module input "
        'variable "bucket_name" is not set, and has no default value. Use a -var or -var-file command '
        "line argument to provide a value for this variable."
    ]
    assert '  on infra/variables.tf line 6:\n    6: variable "bucket_name" {' in outcome.output


def test_undeclared_tfvars_key_is_an_error(tmp_path: Path) -> None:
    files = FILES | {"infra/terraform.tfvars": TFVARS + 'zone = "b"\n'}
    [line] = iac(make_ctx(tmp_path, files)).error_lines
    assert line.startswith("Error: Value for undeclared variable (on infra/terraform.tfvars line 3):")
    assert 'declare a variable named "zone"' in line


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("hashicorp/AWS", 'Invalid provider type "AWS"'),
        ("hashi_corp/aws", 'Invalid provider namespace "hashi_corp"'),
        ("aws", 'Invalid provider source "aws"'),
        ("a/b/c/d", 'Invalid provider source "a/b/c/d"'),
        ("registry..io/hashicorp/aws", 'Invalid provider registry host "registry..io"'),
    ],
)
def test_invalid_provider_source(tmp_path: Path, source: str, reason: str) -> None:
    files = changed("infra/providers.tf", '"hashicorp/aws"', f'"{source}"')
    [line] = iac(make_ctx(tmp_path, files)).error_lines
    assert line.startswith("Error: Invalid provider source string (on infra/providers.tf line 5): " + reason)


def test_provider_block_must_be_declared(tmp_path: Path) -> None:
    files = FILES | {"infra/providers.tf": PROVIDERS + '\nprovider "azurerm" {\n  features {}\n}\n'}
    [line] = iac(make_ctx(tmp_path, files)).error_lines
    assert line.startswith("Error: Missing required provider (on infra/providers.tf line 18):")
    assert 'provider block "azurerm"' in line and "not declared" in line


def test_missing_iam_action_is_named(tmp_path: Path) -> None:
    outcome = iac(make_ctx(tmp_path, required=[*REQUIRED, "s3:DeleteObject", "sqs:SendMessage"]))
    assert not outcome.ok
    assert [line.split(" (on ")[0] for line in outcome.error_lines] == [
        'Error: AccessDenied: the deploy role is not granted "s3:DeleteObject"',
        'Error: AccessDenied: the deploy role is not granted "sqs:SendMessage"',
    ]
    assert all("(on infra/iam.tf)" in line for line in outcome.error_lines)


def test_removing_a_grant_denies_the_action(tmp_path: Path) -> None:
    files = changed("infra/iam.tf", '"kms:Decrypt", ', "")
    [line] = iac(make_ctx(tmp_path, files)).error_lines
    assert 'not granted "kms:Decrypt"' in line


def test_syntax_error_is_reported_and_stops_semantic_checks(tmp_path: Path) -> None:
    files = changed("infra/variables.tf", 'variable "tags" {', 'variable "tags" {{')
    outcome = iac(make_ctx(tmp_path, files, required=["never:Granted"]))
    [line] = outcome.error_lines
    assert line == (
        "Error: Invalid HCL syntax (on infra/variables.tf line 10): "
        "Unexpected STRING_CHARS '{\\n  type    = map(string...' at line 10, column 18; "
        "expected one of: NAME, NL_OR_COMMENT, RBRACE"
    )
    assert "not granted" not in outcome.output


def test_unclosed_block_is_reported_at_end_of_file(tmp_path: Path) -> None:
    files = changed("infra/providers.tf", "  region = var.region\n}\n", "  region = var.region\n")
    [line] = iac(make_ctx(tmp_path, files)).error_lines
    assert line == (
        "Error: Invalid HCL syntax (on infra/providers.tf line 15): "
        "Unexpected end of file at line 16, column 1; expected one of: RBRACE"
    )


def test_missing_tfvars_file(tmp_path: Path) -> None:
    files = {k: v for k, v in FILES.items() if not k.endswith(".tfvars")}
    [line] = iac(make_ctx(tmp_path, files)).error_lines
    assert line == (
        "Error: Failed to read variables file (on infra/terraform.tfvars): "
        'Given variables file "infra/terraform.tfvars" does not exist.'
    )
