"""Scanning small projects of every supported ecosystem and architecture pattern."""

from __future__ import annotations

import json
from pathlib import Path

from contextbase.project.profile import ProjectContext
from contextbase.project.scan import scan_project
from tests.project.conftest import SHOP, write_tree


def scan(tmp_path: Path, files: dict[str, str]) -> ProjectContext:
    return scan_project(write_tree(tmp_path / "p", files))


def roles(profile: ProjectContext, module: str) -> dict[str, str]:
    return {kf.path: kf.role for kf in profile.modules[module].key_files}


# -- Python -----------------------------------------------------------------------


def test_python_fastapi_layered_uv(tmp_path: Path) -> None:
    profile = scan(tmp_path, SHOP)
    assert profile.project.name == "shop"
    assert profile.project.type == "api"
    assert profile.project.path == str((tmp_path / "p").resolve())
    assert profile.tech.stack == ["FastAPI 0.110", "SQLAlchemy 2"]
    assert profile.tech.runtime == "Python 3.11"
    assert profile.tech.package_manager == "uv"
    assert profile.architecture.pattern == "layered"
    assert set(profile.modules) == {"shop", "routes", "services", "models"}
    assert profile.modules["shop"].dependencies == ["routes"]  # main.py, the package's own file
    assert profile.modules["routes"].dependencies == ["services"]
    assert profile.modules["services"].dependencies == ["models"]  # a relative import
    assert profile.modules["models"].description == "Database models."
    assert profile.modules["routes"].path == "src/shop/routes"


def test_django_apps_are_feature_modules(tmp_path: Path) -> None:
    app = {
        "__init__.py": "",
        "models.py": "from django.db import models\n",
        "views.py": "",
        "urls.py": "",
    }
    files = {
        "manage.py": "import django\n",
        "requirements.txt": "Django==5.0.1\npsycopg[binary]>=3.1\n",
        "site/settings.py": "",
        "site/__init__.py": "",
        **{f"accounts/{k}": v for k, v in app.items()},
        **{f"orders/{k}": v for k, v in app.items()},
        "orders/models.py": "from accounts.models import User\n",
        "accounts/README.md": "# Accounts\n\nSign-up, login and profiles.\n",
    }
    profile = scan(tmp_path, files)
    assert profile.project.type == "web-app"
    assert profile.tech.stack == ["Django 5"]
    assert profile.tech.package_manager == "pip"
    assert profile.architecture.pattern == "feature-based"
    assert {"accounts", "orders"} <= set(profile.modules)
    assert profile.modules["orders"].dependencies == ["accounts"]
    assert profile.modules["accounts"].description == "Sign-up, login and profiles."


def test_python_library_with_poetry_and_flat_package(tmp_path: Path) -> None:
    files = {
        "pyproject.toml": '[tool.poetry]\nname = "textkit"\ndescription = "Text utilities"\n'
        '[tool.poetry.dependencies]\npython = "^3.10"\npydantic = "^2.5"\n',
        "poetry.lock": "",
        "textkit/__init__.py": '"""Text utilities."""\nfrom textkit.tokens import split\n',
        "textkit/tokens.py": '"""Tokenising text into words."""\nfrom .normalise import fold\n',
        "textkit/normalise.py": '"""Unicode folding."""\n\ndef fold(s): return s\n',
        "textkit/stems.py": "def stem(w): return w\n",
    }
    profile = scan(tmp_path, files)
    assert profile.project.type == "library"
    assert profile.tech.package_manager == "poetry"
    assert profile.tech.runtime == "Python 3.10"
    assert profile.tech.stack == ["Pydantic 2"]
    assert profile.architecture.pattern == "modular"
    assert {"tokens", "normalise", "stems"} <= set(profile.modules)
    assert profile.modules["tokens"].description == "Tokenising text into words."
    assert profile.modules["tokens"].dependencies == ["normalise"]


def test_python_cli_with_pip_tools(tmp_path: Path) -> None:
    files = {
        "pyproject.toml": '[project]\nname = "deploytool"\ndependencies = ["click>=8.1"]\n'
        '[project.scripts]\ndeploytool = "deploytool.cli:main"\n',
        "requirements.in": "click\n",
        "requirements.txt": "click==8.1.7\n",
        "deploytool/__init__.py": "",
        "deploytool/cli.py": "import click\n",
    }
    profile = scan(tmp_path, files)
    assert profile.project.type == "cli"
    assert profile.tech.package_manager == "pip-tools"
    assert profile.tech.stack == ["Click 8"]


def test_python_backend_with_react_frontend_is_fullstack(tmp_path: Path) -> None:
    files = {
        **SHOP,
        "frontend/package.json": json.dumps(
            {"name": "web", "private": True, "dependencies": {"react": "^18.2.0"}}
        ),
        "frontend/src/App.jsx": "export default function App() {}\n",
    }
    profile = scan(tmp_path, files)
    assert profile.project.type == "fullstack"
    assert "React 18" in profile.tech.stack and "FastAPI 0.110" in profile.tech.stack
    assert profile.tech.package_manager == "uv"


# -- JavaScript / TypeScript --------------------------------------------------------


def test_nextjs_feature_based_with_pnpm(tmp_path: Path) -> None:
    package = {
        "name": "storefront",
        "private": True,
        "dependencies": {"next": "14.1.0", "react": "^18.2.0", "@prisma/client": "^5.9.0"},
        "devDependencies": {"typescript": "^5.3.3"},
    }
    files = {
        "package.json": json.dumps(package),
        "pnpm-lock.yaml": "lockfileVersion: '6.0'\n",
        ".nvmrc": "20.11.0\n",
        "tsconfig.json": "{}",
        "src/app/page.tsx": "export default function Page() {}\n",
        "src/app/api/orders/route.ts": "export async function GET() {}\n",
        "src/features/cart/index.ts": "/** The shopping cart. */\nexport * from './store';\n",
        "src/features/cart/store.ts": "import { formatPrice } from '@/features/catalog/price';\n",
        "src/features/catalog/index.ts": "export * from './price';\n",
        "src/features/catalog/price.ts": "export const formatPrice = () => '';\n",
        "src/features/checkout/index.ts": "import { cart } from '../cart';\n",
        "src/features/checkout/checkout.test.ts": "test('x', () => {});\n",
        "src/lib/db.ts": "import { PrismaClient } from '@prisma/client';\n",
    }
    profile = scan(tmp_path, files)
    assert profile.project.name == "storefront"
    assert profile.project.type == "fullstack"
    assert profile.tech.stack == ["Next.js 14", "React 18", "Prisma 5", "TypeScript 5"]
    assert profile.tech.runtime == "Node.js 20"
    assert profile.tech.package_manager == "pnpm"
    assert profile.architecture.pattern == "feature-based"
    assert {"cart", "catalog", "checkout"} <= set(profile.modules)
    assert profile.modules["cart"].dependencies == ["catalog"]  # an @/ alias import
    assert profile.modules["checkout"].dependencies == ["cart"]  # a relative import
    assert profile.modules["cart"].description == "The shopping cart."
    assert roles(profile, "checkout") == {
        "src/features/checkout/index.ts": "entry",
        "src/features/checkout/checkout.test.ts": "test",
    }


def test_express_layered_api_with_yarn(tmp_path: Path) -> None:
    files = {
        "package.json": json.dumps(
            {
                "name": "orders-api",
                "dependencies": {"express": "^4.18.2"},
                "engines": {"node": ">=18"},
            }
        ),
        "yarn.lock": "",
        "src/index.js": "const app = require('./app');\n",
        "src/controllers/orders.js": "const svc = require('../services/orders');\n",
        "src/services/orders.js": "const Order = require('../models/order');\n",
        "src/models/order.js": "module.exports = {};\n",
        "src/config.js": "module.exports = {};\n",
    }
    profile = scan(tmp_path, files)
    assert profile.project.type == "api"
    assert profile.tech.package_manager == "yarn"
    assert profile.tech.runtime == "Node.js 18"
    assert profile.tech.stack == ["Express 4"]
    assert profile.architecture.pattern == "layered"
    assert profile.modules["controllers"].dependencies == ["services"]
    assert profile.modules["services"].dependencies == ["models"]


def test_react_vite_app_with_bun(tmp_path: Path) -> None:
    files = {
        "package.json": json.dumps(
            {
                "name": "dash",
                "private": True,
                "packageManager": "bun@1.1.4",
                "dependencies": {"react": "^18.3.1", "vue": None},
                "devDependencies": {"vite": "^5.2.0"},
            }
        ),
        "bun.lockb": "",
        "src/main.tsx": "import App from './App';\n",
        "src/App.tsx": "export default function App() {}\n",
    }
    profile = scan(tmp_path, files)
    assert profile.project.type == "web-app"
    assert profile.tech.package_manager == "bun"
    assert profile.tech.runtime == "Bun 1"
    assert "React 18" in profile.tech.stack and "Vite 5" in profile.tech.stack


def test_npm_workspaces_monorepo(tmp_path: Path) -> None:
    files = {
        "package.json": json.dumps({"name": "acme", "private": True, "workspaces": ["packages/*"]}),
        "package-lock.json": "{}",
        "packages/ui/package.json": json.dumps(
            {
                "name": "@acme/ui",
                "description": "Shared React components",
                "dependencies": {"react": "^18.2.0"},
            }
        ),
        "packages/ui/src/index.ts": "export const Button = 1;\n",
        "packages/server/package.json": json.dumps(
            {"name": "@acme/server", "dependencies": {"fastify": "^4.26.0"}}
        ),
        "packages/server/src/index.ts": "import { Button } from '@acme/ui';\n",
    }
    profile = scan(tmp_path, files)
    assert profile.architecture.pattern == "monorepo"
    assert profile.tech.package_manager == "npm"
    assert set(profile.modules) == {"ui", "server"}
    assert profile.modules["ui"].description == "Shared React components"
    assert profile.modules["server"].dependencies == ["ui"]
    assert profile.project.type == "fullstack"


# -- Go, Rust, Java ------------------------------------------------------------------


def test_go_gin_service(tmp_path: Path) -> None:
    files = {
        "go.mod": "module example.com/shop\n\ngo 1.22\n\nrequire (\n"
        "\tgithub.com/gin-gonic/gin v1.9.1\n\tgorm.io/gorm v1.25.7\n)\n",
        "cmd/server/main.go": 'package main\n\nimport (\n\t"net/http"\n'
        '\t"example.com/shop/internal/orders"\n)\n\n'
        'func main() { http.ListenAndServe(":8080", nil) }\n',
        "internal/orders/doc.go": "// Package orders places and tracks orders.\npackage orders\n",
        "internal/orders/orders.go": 'package orders\n\nimport "example.com/shop/internal/store"\n',
        "internal/orders/orders_test.go": "package orders\n",
        "internal/store/store.go": "package store\n",
    }
    profile = scan(tmp_path, files)
    assert profile.project.name == "shop"
    assert profile.project.type == "api"
    assert profile.tech.runtime == "Go 1.22"
    assert profile.tech.package_manager == "go"
    assert profile.tech.stack == ["Gin 1", "GORM 1"]
    assert {"server", "orders", "store"} <= set(profile.modules)
    assert profile.modules["server"].dependencies == ["orders"]
    assert profile.modules["orders"].dependencies == ["store"]
    assert profile.modules["orders"].description == "Package orders places and tracks orders."
    assert roles(profile, "orders")["internal/orders/orders_test.go"] == "test"


def test_go_cobra_cli(tmp_path: Path) -> None:
    files = {
        "go.mod": "module github.com/acme/tool/v2\n\ngo 1.21\n\n"
        "require github.com/spf13/cobra v1.8.0\n",
        "main.go": "package main\n\nfunc main() {}\n",
    }
    profile = scan(tmp_path, files)
    assert profile.project.name == "tool"
    assert profile.project.type == "cli"
    assert profile.tech.stack == ["Cobra 1"]


def test_go_flat_library_is_one_package(tmp_path: Path) -> None:
    files = {
        "go.mod": "module github.com/acme/kit\n\ngo 1.20\n",
        "kit.go": "// Package kit holds small helpers.\npackage kit\n",
        "strings.go": "package kit\n",
        "retry.go": "package kit\n",
        "encoding/json.go": 'package encoding\n\nimport "github.com/acme/kit"\n',
        "encoding/csv.go": "package encoding\n",
    }
    profile = scan(tmp_path, files)
    assert profile.project.type == "library"
    assert set(profile.modules) == {"kit", "encoding"}  # files of one folder: one package
    assert profile.modules["kit"].description == "Package kit holds small helpers."
    assert profile.modules["encoding"].path == "encoding"
    assert profile.modules["encoding"].dependencies == ["kit"]


def test_rust_cargo_workspace(tmp_path: Path) -> None:
    files = {
        "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n',
        "crates/engine/Cargo.toml": '[package]\nname = "engine-core"\nedition = "2021"\n'
        'description = "The search engine"\n[dependencies]\nserde = "1.0"\n',
        "crates/engine/src/lib.rs": "//! Indexing and ranking.\npub fn rank() {}\n",
        "crates/cli/Cargo.toml": '[package]\nname = "engine-cli"\nrust-version = "1.74"\n'
        '[dependencies]\nclap = { version = "4.5", features = ["derive"] }\n'
        'engine-core = { path = "../engine" }\n',
        "crates/cli/src/main.rs": "use engine_core::rank;\nfn main() {}\n",
    }
    profile = scan(tmp_path, files)
    assert profile.architecture.pattern == "monorepo"
    assert profile.tech.package_manager == "cargo"
    assert set(profile.modules) == {"engine-core", "engine-cli"}
    assert profile.modules["engine-cli"].dependencies == ["engine-core"]
    assert profile.modules["engine-core"].description == "The search engine"
    assert profile.project.type == "cli"
    assert {"Serde 1", "clap 4"} <= set(profile.tech.stack)


def test_rust_axum_crate_modules(tmp_path: Path) -> None:
    files = {
        "Cargo.toml": '[package]\nname = "notes"\nedition = "2021"\n'
        '[dependencies]\naxum = "0.7"\ntokio = { version = "1", features = ["full"] }\n',
        "src/main.rs": "mod routes;\nmod db;\nfn main() {}\n",
        "src/routes/mod.rs": "//! HTTP handlers.\nuse crate::db::Pool;\n",
        "src/routes/notes.rs": "use crate::{db, routes};\n",
        "src/db/mod.rs": "pub struct Pool;\n",
    }
    profile = scan(tmp_path, files)
    assert profile.project.type == "api"
    assert profile.tech.stack == ["Axum 0.7", "Tokio 1"]
    assert profile.tech.runtime == "Rust (edition 2021)"
    assert profile.modules["routes"].dependencies == ["db"]
    assert profile.modules["routes"].description == "HTTP handlers."


def test_java_spring_boot_maven_layered(tmp_path: Path) -> None:
    pom = """<?xml version="1.0"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <parent><groupId>org.springframework.boot</groupId>
    <artifactId>spring-boot-starter-parent</artifactId><version>3.2.1</version></parent>
  <artifactId>bookstore</artifactId>
  <description>Sells books</description>
  <properties><java.version>17</java.version></properties>
  <dependencies>
    <dependency><groupId>org.springframework.boot</groupId>
      <artifactId>spring-boot-starter-web</artifactId></dependency>
    <dependency><groupId>org.hibernate.orm</groupId><artifactId>hibernate-core</artifactId>
      <version>6.4.1.Final</version></dependency>
  </dependencies>
</project>"""
    base = "src/main/java/com/acme/bookstore"
    files = {
        "pom.xml": pom,
        f"{base}/BookstoreApplication.java": "package com.acme.bookstore;\n",
        f"{base}/controller/BookController.java": "package com.acme.bookstore.controller;\n"
        "import com.acme.bookstore.service.BookService;\n",
        f"{base}/service/BookService.java": "package com.acme.bookstore.service;\n"
        "import com.acme.bookstore.repository.BookRepository;\n",
        f"{base}/repository/BookRepository.java": "package com.acme.bookstore.repository;\n",
        f"{base}/repository/package-info.java": "/**\n * Data access for books.\n */\n"
        "package com.acme.bookstore.repository;\n",
        "src/test/java/com/acme/bookstore/service/BookServiceTest.java": "class T {}\n",
    }
    profile = scan(tmp_path, files)
    assert profile.project.name == "bookstore"
    assert profile.project.type == "api"
    assert profile.tech.package_manager == "maven"
    assert profile.tech.runtime == "Java 17"
    assert profile.tech.stack == ["Spring Boot 3", "Hibernate 6"]
    assert profile.architecture.pattern == "layered"
    assert profile.modules["controller"].dependencies == ["service"]
    assert profile.modules["service"].dependencies == ["repository"]
    assert profile.modules["repository"].description == "Data access for books."
    test_file = "src/test/java/com/acme/bookstore/service/BookServiceTest.java"
    assert roles(profile, "service")[test_file] == "test"
    assert roles(profile, "bookstore")[f"{base}/BookstoreApplication.java"] == "entry"


def test_gradle_kotlin_multi_project(tmp_path: Path) -> None:
    files = {
        "settings.gradle.kts": 'rootProject.name = "chat"\ninclude("app", "protocol")\n',
        "build.gradle.kts": 'plugins { kotlin("jvm") version "1.9.22" }\n',
        "app/build.gradle.kts": "plugins { application }\njava { toolchain {"
        " languageVersion.set(JavaLanguageVersion.of(21)) } }\n"
        'dependencies { implementation("io.ktor:ktor-server-core:2.3.7") }\n',
        "app/src/main/kotlin/chat/App.kt": "package chat\nimport chat.protocol.Message\n",
        "protocol/build.gradle.kts": "",
        "protocol/src/main/kotlin/chat/protocol/Message.kt": "package chat.protocol\n",
    }
    profile = scan(tmp_path, files)
    assert profile.project.name == "chat"
    assert profile.tech.package_manager == "gradle"
    assert profile.architecture.pattern == "monorepo"
    assert set(profile.modules) == {"app", "protocol"}
    assert profile.modules["app"].dependencies == ["protocol"]
    assert profile.project.type == "api"
    assert "Ktor 2" in profile.tech.stack and "Kotlin 1" in profile.tech.stack


# -- no manifest, ignored folders, key files -----------------------------------------------


def test_folder_without_manifest(tmp_path: Path) -> None:
    profile = scan(tmp_path, {"notes.py": "print(1)\n", "tools/run.py": "print(2)\n"})
    assert profile.tech.package_manager == "unknown"
    assert profile.tech.runtime == "Python"
    assert profile.project.type == "library"
    assert profile.project.name == "p"


def test_dependency_folders_are_never_scanned(tmp_path: Path) -> None:
    files = {
        **SHOP,
        "node_modules/left-pad/index.js": "module.exports = 1;\n",
        ".venv/lib/site.py": "",
        "src/shop/__pycache__/x.py": "",
    }
    profile = scan(tmp_path, files)
    paths = [kf.path for m in profile.modules.values() for kf in m.key_files]
    assert not any("node_modules" in p or ".venv" in p or "__pycache__" in p for p in paths)


def test_key_file_roles(tmp_path: Path) -> None:
    files = {
        **SHOP,
        "src/shop/services/settings.py": "DEBUG = False\n",
        "src/shop/services/big.py": "x = 1\n" * 200,
        "tests/test_services.py": "def test(): pass\n",
    }
    profile = scan(tmp_path, files)
    found = roles(profile, "services")
    assert found["src/shop/services/__init__.py"] == "entry"
    assert found["src/shop/services/settings.py"] == "config"
    assert found["src/shop/services/big.py"] == "core"
    assert found["tests/test_services.py"] == "test"
    core = [p for p, r in found.items() if r == "core"]
    assert core[0] == "src/shop/services/big.py"  # the largest first
