import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261125032353 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "fitroom_tryon" drop constraint if exists "fitroom_tryon_job_id_unique";`);
    this.addSql(`alter table if exists "fitroom_size_chart" drop constraint if exists "fitroom_size_chart_category_id_unique";`);
    this.addSql(`alter table if exists "fitroom_size_chart" drop constraint if exists "fitroom_size_chart_product_id_unique";`);
    this.addSql(`alter table if exists "fitroom_product_model" drop constraint if exists "fitroom_product_model_job_id_unique";`);
    this.addSql(`create table if not exists "fitroom_product_model" ("id" text not null, "product_id" text not null, "status" text check ("status" in ('processing', 'ready', 'attached', 'failed')) not null default 'processing', "job_id" text null, "progress" integer not null default 0, "glb_file_id" text null, "glb_url" text null, "usdz_file_id" text null, "usdz_url" text null, "preview_file_id" text null, "preview_url" text null, "error_code" text null, "error_message" text null, "source_images" jsonb null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "fitroom_product_model_pkey" primary key ("id"));`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_fitroom_product_model_deleted_at" ON "fitroom_product_model" ("deleted_at") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_fitroom_product_model_product_id" ON "fitroom_product_model" ("product_id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_fitroom_product_model_status" ON "fitroom_product_model" ("status") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_fitroom_product_model_job_id_unique" ON "fitroom_product_model" ("job_id") WHERE job_id IS NOT NULL AND deleted_at IS NULL;`);

    this.addSql(`create table if not exists "fitroom_size_chart" ("id" text not null, "product_id" text null, "category_id" text null, "garment_category" text check ("garment_category" in ('top', 'bottom', 'fullBody')) not null, "chart" jsonb not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "fitroom_size_chart_pkey" primary key ("id"));`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_fitroom_size_chart_deleted_at" ON "fitroom_size_chart" ("deleted_at") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_fitroom_size_chart_product_id_unique" ON "fitroom_size_chart" ("product_id") WHERE product_id IS NOT NULL AND deleted_at IS NULL;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_fitroom_size_chart_category_id_unique" ON "fitroom_size_chart" ("category_id") WHERE category_id IS NOT NULL AND deleted_at IS NULL;`);

    this.addSql(`create table if not exists "fitroom_tryon" ("id" text not null, "job_id" text not null, "product_id" text not null, "customer_id" text null, "cart_id" text null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "fitroom_tryon_pkey" primary key ("id"));`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_fitroom_tryon_deleted_at" ON "fitroom_tryon" ("deleted_at") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_fitroom_tryon_job_id_unique" ON "fitroom_tryon" ("job_id") WHERE deleted_at IS NULL;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "fitroom_product_model" cascade;`);

    this.addSql(`drop table if exists "fitroom_size_chart" cascade;`);

    this.addSql(`drop table if exists "fitroom_tryon" cascade;`);
  }

}
